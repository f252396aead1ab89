import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SPEC_PROVIDERS, LOCAL_PROVIDERS } from '../../shared/schemas/stt.js';
import { providerLabel } from '../../shared/providers.js';
import type { VoxClient } from '../../client/index.js';
import type { HandlerContext } from './context.js';
import { usageError } from './errors.js';

/**
 * Every provider token the service accepts (DESIGN §4.11). Mirrors `ALL_PROVIDERS` of the shared
 * schema without importing TypeBox at CLI startup; test/unit/cli/stt.test.ts checks they are equal.
 */
export const ALL_PROVIDERS: readonly ((typeof SPEC_PROVIDERS)[number] | (typeof LOCAL_PROVIDERS)[number])[] = [
  'stt-a-model-1',
  'stt-a-model-2',
  'stt-b',
  'stt-c',
  'stt-d',
  'stt-e',
  'stt-f',
  'stt-g',
  'stt-h',
  'local-sphinx',
];

/** `--providers`: the named tokens, or every provider the service has configured (`all`, DESIGN §8.1). */
export type ProviderChoice = { all: true } | { all: false; list: string[] };

/** A provider as `GET /v1/stt/providers` describes it; `label` and `price_per_minute_usd` only where the service gives them. */
export interface ProviderView {
  id: string;
  adapter: string | null;
  model: string | null;
  state: string;
  detail?: string;
  label?: string | null;
  price_per_minute_usd?: number | null;
  /** Whether it can stream (DESIGN §13.1); absent from services older than streaming. */
  streaming?: boolean;
}

/** Bound by the server's config (a `not_configured` token would fail every request). */
export const isConfigured = (p: Pick<ProviderView, 'state'>): boolean => p.state !== 'not_configured';

/**
 * Parses `--providers a,b` or `all`. Unknown tokens are a usage error naming the valid ones (the
 * service's own message, exit 2 as its 400 would be); an empty list too.
 */
export function parseProviders(value: string): ProviderChoice {
  if (value.trim() === 'all') return { all: true };
  const list = [...new Set(value.split(',').map((p) => p.trim()).filter(Boolean))];
  if (list.length === 0) throw usageError('--providers needs at least one provider', `valid providers: ${ALL_PROVIDERS.join(', ')}, or all`);
  const unknown = list.find((p) => !(ALL_PROVIDERS as readonly string[]).includes(p));
  if (unknown) throw usageError(`Unknown provider: ${unknown}`, `valid providers: ${ALL_PROVIDERS.join(', ')}, or all (every configured one; see \`voxctl stt providers\`)`);
  return { all: false, list };
}

/** How long the providers of a service are remembered for labels (a loop of `stt transcribe` asks once). */
export const PROVIDERS_TTL_MS = 10 * 60 * 1000;

/**
 * The providers of the command's service, and what the CLI does with them: resolve `all` to the
 * configured ones, label tokens with vendor and model, price a dry run. Fresh answers are remembered
 * per base URL in the config dir for PROVIDERS_TTL_MS, so labelling a table costs no request in a loop.
 */
export class ProviderCatalog {
  private fresh?: Promise<ProviderView[]>;

  constructor(
    private readonly ctx: HandlerContext,
    private readonly client: VoxClient,
  ) {}

  private get file(): string {
    return join(this.ctx.configDir, 'stt-providers.json');
  }

  private readCache(): Record<string, { items: ProviderView[]; at: number }> {
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, { items: ProviderView[]; at: number }>;
    } catch {
      return {};
    }
  }

  /** The service's answer now (one request per command at most). */
  list(): Promise<ProviderView[]> {
    this.fresh ??= this.client.listProviders().then((l) => {
      const items = l.items as ProviderView[];
      try {
        const all = this.readCache();
        all[this.client.baseUrl] = { items, at: this.ctx.clock.now().getTime() };
        mkdirSync(this.ctx.configDir, { recursive: true, mode: 0o700 });
        writeFileSync(this.file, JSON.stringify(all) + '\n');
      } catch {
        // A cache that cannot be written only costs a request next time.
      }
      return items;
    });
    return this.fresh;
  }

  /** The remembered answer when recent, else the service's; never fails (labels are a courtesy): [] then. */
  async recent(): Promise<ProviderView[]> {
    const hit = this.readCache()[this.client.baseUrl];
    if (hit && this.ctx.clock.now().getTime() - hit.at < PROVIDERS_TTL_MS) return hit.items;
    return this.list().catch(() => []);
  }

  /** The tokens of `choice`: `all` → every configured provider of the service. */
  async resolve(choice: ProviderChoice): Promise<string[]> {
    if (!choice.all) return choice.list;
    return (await this.list()).filter(isConfigured).map((p) => p.id);
  }

  /** Labels tokens as `stt-b · deepgram nova-3` (the bare token when the service does not say). */
  async labeller(): Promise<(id: string) => string> {
    const byId = new Map((await this.recent()).map((p) => [p.id, p]));
    return (id) => {
      const p = byId.get(id);
      return p ? providerLabel(p) : id;
    };
  }
}
