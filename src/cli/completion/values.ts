import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, paginate, type VoxClient } from '../../client/index.js';
import type { HandlerContext } from '../core/context.js';
import { ALL_PROVIDERS } from '../core/stt-providers.js';
import { DEFAULT_PROFILE, resolveKey, resolveTarget, type GlobalFlags } from '../core/session.js';

/** How long values fetched from the service are reused by later TAB presses ("cached briefly", as gh does). */
export const COMPLETION_CACHE_MS = 5 * 60 * 1000;
/** A completion must answer fast: the service gets this long, then the cache (or nothing) is used. */
const COMPLETION_TIMEOUT_MS = 2000;

const FACET_OPTIONS: Record<string, string> = {
  '--gender': 'gender',
  '--region': 'region',
  '--accent': 'accent',
  '--age-range': 'age_range',
  '--native-language': 'native_language',
  '--language': 'native_language',
};

/** What kind of value the word under the cursor is, from the words before it; undefined for static completion. */
export function valueKind(words: readonly string[]): { kind: 'speaker' | 'profile' | 'provider' | 'facet'; facet?: string } | undefined {
  const prev = words.at(-1);
  if (prev === '--speaker' || prev === '-s') return { kind: 'speaker' };
  if (prev === '--profile') return { kind: 'profile' };
  if (prev === '--providers' || prev === '-p') return { kind: 'provider' };
  if (prev !== undefined && FACET_OPTIONS[prev]) return { kind: 'facet', facet: FACET_OPTIONS[prev] };
  const operands: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i]!.startsWith('-')) {
      if (takesValue(words[i]!)) i++;
      continue;
    }
    operands.push(words[i]!);
  }
  const path = operands.join(' ');
  if (path === 'speakers show' || path === 'speakers sample' || path === 'config set speaker') return { kind: 'speaker' };
  if (path === 'profile use' || path === 'profile remove') return { kind: 'profile' };
  return undefined;
}

// Options whose next word is their value (so it is not a command word).
const takesValue = (option: string) => ['--profile', '--base-url', '--api-key', '--speaker', '--providers', '-o', '--out', '--file', '--name', ...Object.keys(FACET_OPTIONS)].includes(option);

interface CacheFile {
  [key: string]: { at: number; values: string[] };
}

/** Reads values from `{configDir}/completion-cache.json`, or fetches and stores them (kept COMPLETION_CACHE_MS). */
async function cached(ctx: HandlerContext, key: string, fetch: () => Promise<string[]>): Promise<string[]> {
  const file = join(ctx.configDir, 'completion-cache.json');
  let cache: CacheFile = {};
  try {
    cache = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
  } catch {
    // no cache yet
  }
  const hit = cache[key];
  const now = ctx.clock.now().getTime();
  if (hit && now - hit.at < COMPLETION_CACHE_MS) return hit.values;
  try {
    const values = await fetch();
    cache[key] = { at: now, values };
    mkdirSync(ctx.configDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify(cache) + '\n', { mode: 0o600 });
    return values;
  } catch {
    // The service is not reachable (never started for a completion): an old answer beats none.
    return hit?.values ?? [];
  }
}

/**
 * Candidates for the word under the cursor (`current`) after `words`: speaker ids, filter values,
 * profile names and provider names, from the service when it is reachable. Undefined when the word is
 * not a value we complete dynamically (the shell script's static words apply).
 */
export async function completeValues(ctx: HandlerContext, words: readonly string[], current: string): Promise<string[] | undefined> {
  const what = valueKind(words);
  if (!what) return undefined;
  const flags: GlobalFlags = { autostart: false };
  for (const [i, w] of words.entries()) {
    if (w === '--profile') flags.profile = words[i + 1];
    if (w === '--base-url') flags.baseUrl = words[i + 1];
  }
  let values: string[];
  if (what.kind === 'profile') {
    const profiles = Object.keys((await ctx.config()).profiles());
    values = [...new Set([DEFAULT_PROFILE, ...profiles])];
  } else {
    const target = await resolveTarget(ctx, flags).catch(() => undefined);
    if (!target) return [];
    const client = async (): Promise<VoxClient> => {
      const { key } = await resolveKey(ctx, flags, target);
      return createClient({ baseUrl: target.baseUrl, apiKey: key, dispatcher: ctx.dispatcher, timeoutMs: COMPLETION_TIMEOUT_MS });
    };
    const key = `${target.baseUrl} ${what.kind} ${what.facet ?? ''}`;
    if (what.kind === 'speaker') {
      values = await cached(ctx, key, async () => {
        const c = await client();
        const ids: string[] = [];
        for await (const s of paginate((p) => c.listSpeakers(p))) ids.push(s.id);
        return ids;
      });
    } else if (what.kind === 'facet') {
      values = await cached(ctx, key, async () => ((await (await client()).speakerFacets())[what.facet as 'gender'] ?? []).map((v) => v.value));
    } else {
      const fromService = await cached(ctx, key, async () => (await (await client()).listProviders()).items.map((p) => p.id));
      values = [...new Set([...(fromService.length ? fromService : ALL_PROVIDERS), 'all'])];
      // `--providers a,b,<TAB>` completes the last item of the list.
      const comma = current.lastIndexOf(',');
      if (comma >= 0) {
        const head = current.slice(0, comma + 1);
        const taken = new Set(head.split(','));
        return values.filter((v) => v !== 'all' && !taken.has(v) && v.startsWith(current.slice(comma + 1))).map((v) => head + v);
      }
    }
  }
  const prefix = current.toLowerCase();
  return values.filter((v) => v.toLowerCase().startsWith(prefix));
}
