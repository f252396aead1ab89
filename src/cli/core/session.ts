import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveDataDir } from '../../shared/paths.js';
import { VERSION } from '../../shared/version.js';
import { createClient, type VoxClient } from '../../client/index.js';
import type { HandlerContext } from './context.js';
import { CliError, ExitCode, usageError } from './errors.js';
import { Output } from './output.js';
import { DEFAULT_PORT } from '../../shared/constants.js';
import { builtin } from '../../shared/builtin.js';
import { useBaselineWasmTier } from './wasm-tier.js';
import {
  EMBEDDED_BASE_URL,
  isAlive,
  probeService,
  readBootstrapKey,
  readServerRecord,
  startDetached,
  stopLocal,
  wasAutostarted,
} from './local-server.js';

/** Options every command accepts (declared on the root program). */
export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
  apiKey?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** false with --no-autostart. */
  autostart?: boolean;
  insecureStorage?: boolean;
  /** false with --no-color. */
  color?: boolean;
}

/** Where a value came from (shown by `auth status`). */
export type Source = 'flag' | 'env' | 'profile' | 'embedded' | 'keychain' | 'file';

/** The service a command acts on. */
export interface Target {
  profile: string;
  baseUrl: string;
  baseUrlSource: Source;
  /** No profile and no override: the local service on 127.0.0.1:7723. */
  embedded: boolean;
}

/** The profile name used when none is configured. */
export const DEFAULT_PROFILE = 'default';

/** Builds the Output of this invocation from the global flags and the context's streams. */
export function outputFor(ctx: HandlerContext, flags: GlobalFlags): Output {
  return new Output({
    stdout: ctx.stdout,
    stderr: ctx.stderr,
    json: Boolean(flags.json),
    quiet: Boolean(flags.quiet),
    verbose: Boolean(flags.verbose),
    noColor: ctx.env.noColor() || flags.color === false,
  });
}

/** Resolves profile and base URL: --base-url > VOXCTL_BASE_URL > profile > embedded default (DESIGN §5). */
export async function resolveTarget(ctx: HandlerContext, flags: GlobalFlags): Promise<Target> {
  const config = await ctx.config();
  const profiles = config.profiles();
  const profile = flags.profile ?? config.currentProfile() ?? DEFAULT_PROFILE;
  if (flags.profile && !profiles[flags.profile] && flags.profile !== DEFAULT_PROFILE && !flags.baseUrl && !ctx.env.baseUrl()) {
    throw usageError(`Unknown profile '${flags.profile}'`, 'list profiles with `voxctl profile list`, add one with `voxctl profile add NAME --base-url URL`');
  }
  if (flags.baseUrl) return { profile, baseUrl: checkUrl(flags.baseUrl, '--base-url'), baseUrlSource: 'flag', embedded: false };
  const envUrl = ctx.env.baseUrl();
  if (envUrl) return { profile, baseUrl: checkUrl(envUrl, 'VOXCTL_BASE_URL'), baseUrlSource: 'env', embedded: false };
  const fromProfile = profiles[profile]?.base_url;
  if (fromProfile) return { profile, baseUrl: fromProfile.replace(/\/+$/, ''), baseUrlSource: 'profile', embedded: false };
  return { profile, baseUrl: EMBEDDED_BASE_URL, baseUrlSource: 'embedded', embedded: true };
}

function checkUrl(value: string, what: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value.replace(/\/+$/, '');
  } catch {
    // fall through
  }
  throw usageError(`${what} must be an http(s) URL, got '${value}'`);
}

/** The key for `target`: --api-key (warns) > VOXCTL_API_KEY > keychain > fallback file. */
export async function resolveKey(
  ctx: HandlerContext,
  flags: GlobalFlags,
  target: Target,
): Promise<{ key: string | undefined; source: Source | undefined; keychainError?: string }> {
  if (flags.apiKey) return { key: flags.apiKey, source: 'flag' };
  const envKey = ctx.env.apiKey();
  if (envKey) return { key: envKey, source: 'env' };
  const stored = await ctx.keys.get(target.profile);
  return { key: stored.key, source: stored.storage, keychainError: stored.keychainError };
}

/** What a command gets to talk to the service. */
export interface Session {
  client: VoxClient;
  target: Target;
  out: Output;
  keySource: Source | undefined;
}

/** Options of `connect`. */
export interface ConnectOptions {
  /** The command needs a key (default true). */
  auth?: boolean;
  /** The command writes or prompts: say which target it acts on (unless it is the embedded default). */
  announce?: boolean;
}

/**
 * Resolves target and key, starts the embedded service when needed, and returns a client.
 * A missing key on an authenticated command is an authentication error (exit 3).
 */
export async function connect(ctx: HandlerContext, flags: GlobalFlags, options: ConnectOptions = {}): Promise<Session> {
  const out = outputFor(ctx, flags);
  const target = await resolveTarget(ctx, flags);
  if (flags.apiKey) out.warn('--api-key puts the key in your shell history; prefer VOXCTL_API_KEY or `voxctl auth login`.');
  if (target.embedded) await ensureEmbedded(ctx, flags, out, target);
  const { key, source } = await resolveKey(ctx, flags, target);
  if (options.auth !== false && !key) {
    throw new CliError(`No API key for profile '${target.profile}' (${target.baseUrl})`, { exitCode: ExitCode.auth, hint: 'run voxctl auth login' });
  }
  if (options.announce) announceTarget(out, target);
  out.debug(`target ${target.baseUrl} (profile ${target.profile}, url from ${target.baseUrlSource}, key from ${source ?? 'nowhere'})`);
  const client = createClient({
    baseUrl: target.baseUrl,
    apiKey: key,
    dispatcher: ctx.dispatcher,
    onLog: (l) => out.debug(l),
    beforeFetch: useBaselineWasmTier,
  });
  if (!target.embedded) checkVersion(ctx, client, out, target);
  return { client, target, out, keySource: source };
}

/** How long a remote service's version is trusted before it is asked again. */
export const VERSION_CHECK_TTL_MS = 60 * 60 * 1000;

/**
 * Warns when a remote service runs another version (DESIGN §7). The answer is cached per base URL for an
 * hour in the config dir, so most commands cost no extra request; a stale entry is refreshed in the
 * background (main awaits it before exiting).
 */
export function checkVersion(ctx: HandlerContext, client: VoxClient, out: Output, target: Target): void {
  const file = join(ctx.configDir, 'server-versions.json');
  let cache: Record<string, { version: string; checked_at: number }> = {};
  try {
    cache = JSON.parse(readFileSync(file, 'utf8')) as typeof cache;
  } catch {
    // no cache yet
  }
  const warn = (v: string) => {
    if (v && v !== VERSION) out.warn(`the service at ${target.baseUrl} runs voxctl ${v}; this CLI is ${VERSION}.`);
  };
  const hit = cache[target.baseUrl];
  if (hit && ctx.clock.now().getTime() - hit.checked_at < VERSION_CHECK_TTL_MS) return warn(hit.version);
  ctx.pending.push(
    client
      .serverVersion()
      .then((version) => {
        warn(version);
        cache[target.baseUrl] = { version, checked_at: ctx.clock.now().getTime() };
        mkdirSync(ctx.configDir, { recursive: true, mode: 0o700 });
        writeFileSync(file, JSON.stringify(cache, null, 2) + '\n');
      })
      .catch(() => undefined),
  );
}

/** Prints the target on stderr before a write or prompt, when it is not the embedded default (DESIGN §7). */
export function announceTarget(out: Output, target: Target): void {
  if (target.embedded || out.quiet) return;
  const text = `Target: profile ${target.profile} → ${target.baseUrl}`;
  // Under --json, stderr carries JSON lines only: the target is said as one.
  if (out.json) out.stderr.write(JSON.stringify({ target: { profile: target.profile, base_url: target.baseUrl, message: text } }) + '\n');
  else out.info(out.errColor.dim(text));
}

/**
 * The embedded default: make sure a service of this version answers on 127.0.0.1:7723 (starting it
 * detached, or restarting an auto-started one of another version), and provision its bootstrap key.
 *
 * Scripts call the CLI in loops (DESIGN §7), so this costs at most one cheap request: a live pid in
 * `server.json` written by a service of this version on the embedded port needs none at all (no HTTP,
 * so no rate-limit bucket); otherwise one GET /health, where ANY HTTP answer — 429 included — means a
 * service is running and no second one is started.
 */
export async function ensureEmbedded(
  ctx: HandlerContext,
  flags: GlobalFlags,
  out: Output,
  target: Target,
  options: { provision?: boolean } = {},
): Promise<void> {
  const dataDir = resolveDataDir(undefined, ctx.env.raw());
  const rec = readServerRecord(dataDir);
  const recorded = rec !== undefined && rec.port === EMBEDDED_PORT && isAlive(rec.pid);
  let fresh = false;
  if (!(recorded && rec.version === VERSION)) {
    let answer = await probeService(target.baseUrl);
    if (answer?.version !== undefined && answer.version !== VERSION) {
      if (recorded && wasAutostarted(dataDir, rec.pid) && flags.autostart !== false) {
        out.info(`Restarting the local service (voxctl ${answer.version} → ${VERSION})...`);
        await stopLocal(dataDir);
        answer = undefined;
      } else {
        out.warn(`the service at ${target.baseUrl} runs voxctl ${answer.version}; this CLI is ${VERSION}.`);
      }
    }
    if (!answer) fresh = await startEmbedded(ctx, flags, out, target, dataDir);
  }
  if (options.provision === false || flags.apiKey || ctx.env.apiKey()) return;
  await provisionKey(ctx, flags, out, target, dataDir, fresh);
}

/** The embedded port (DESIGN §1). */
const EMBEDDED_PORT = DEFAULT_PORT;

/** Starts the embedded service; true when it began on an empty data dir (so it has a new bootstrap key). */
async function startEmbedded(ctx: HandlerContext, flags: GlobalFlags, out: Output, target: Target, dataDir: string): Promise<boolean> {
  if (flags.autostart === false) {
    throw new CliError(`No voxctl service answers at ${target.baseUrl}`, {
      code: 'service_not_running',
      hint: 'start one with `voxctl serve --detach` (or run without --no-autostart); check with `voxctl serve status`',
    });
  }
  const fresh = !existsSync(join(dataDir, 'voxctl.db'));
  try {
    const started = await withSpinner(out, 'Starting the local voxctl service', () =>
      startDetached({ dataDir, host: '127.0.0.1', port: EMBEDDED_PORT, env: ctx.env.raw(), autostarted: true }),
    );
    out.info(`Started the local voxctl service (pid ${started.pid}, data in ${dataDir}).`);
    return fresh;
  } catch (e) {
    // Another CLI of the same loop may have won the port meanwhile: its service is as good as ours.
    if (await probeService(target.baseUrl)) return false;
    throw new CliError(`Could not start the local service: ${e instanceof Error ? e.message : String(e)}`, {
      hint: 'run `voxctl serve` in a terminal to see why, or point the CLI elsewhere with --base-url / a profile',
      cause: e,
    });
  }
}

/** `{configDir}/embedded-key.json`: the fingerprint of the key the CLI took from the local service's bootstrap file. */
const provisionedFile = (ctx: HandlerContext) => join(ctx.configDir, 'embedded-key.json');
const fingerprint = (key: string) => builtin('node:crypto').createHash('sha256').update(key).digest('hex');

function provisionedFingerprint(ctx: HandlerContext): string | undefined {
  try {
    return (JSON.parse(readFileSync(provisionedFile(ctx), 'utf8')) as { fingerprint?: string }).fingerprint;
  } catch {
    return undefined;
  }
}

/**
 * Stores the local service's bootstrap key for the embedded profile when none is stored, and replaces a
 * stored key that the CLI provisioned earlier from another bootstrap (the data dir was wiped: that key
 * would answer 401 forever). A key the user logged in with is never replaced, except when the service
 * just started on an empty data dir — a new database knows no other key.
 */
async function provisionKey(ctx: HandlerContext, flags: GlobalFlags, out: Output, target: Target, dataDir: string, fresh: boolean): Promise<void> {
  const bootstrap = readBootstrapKey(dataDir);
  if (!bootstrap) return;
  const stored = await ctx.keys.get(target.profile);
  if (stored.key === bootstrap) return;
  const previous = provisionedFingerprint(ctx);
  const stale = stored.key !== undefined && (fresh || previous === fingerprint(stored.key));
  if (stored.key && !stale) return;
  // A keychain that did not answer in time reads as "no key": what we provisioned before is still replaced.
  const replacing = stale || (previous !== undefined && previous !== fingerprint(bootstrap));
  const saved = await ctx.keys.set(target.profile, bootstrap, { insecure: flags.insecureStorage });
  if (saved.keychainError) warnFallback(out, saved.keychainError, ctx.keys.filePath);
  mkdirSync(ctx.configDir, { recursive: true, mode: 0o700 });
  writeFileSync(provisionedFile(ctx), JSON.stringify({ fingerprint: fingerprint(bootstrap) }) + '\n', { mode: 0o600 });
  const where = saved.storage === 'keychain' ? 'OS keychain' : ctx.keys.filePath;
  out.info(replacing ? `The local service's data was reset: replaced its stored key (${where}).` : `Stored the local service's key (${where}).`);
}

/** The one-line warning when the keychain is not usable and the key goes to the file. */
export function warnFallback(out: Output, reason: string, file: string): void {
  out.warn(`keychain unreachable (${reason}); key stored in ${file} (mode 0600).`);
}

/** Waits shorter than this show no spinner (DESIGN §7: a spinner for waits over ~1 s). */
export const SPINNER_DELAY_MS = 1000;

/**
 * Runs `fn` with an ora spinner on stderr when stderr is a terminal (never with --json/--quiet), shown
 * only once the wait passes SPINNER_DELAY_MS so quick answers do not flicker.
 */
export async function withSpinner<T>(out: Output, text: string, fn: () => Promise<T>): Promise<T> {
  if (!out.stderrTTY || out.quiet || out.json) return fn();
  let spinner: { stop(): void } | undefined;
  let done = false;
  const timer = setTimeout(() => {
    void import('ora').then(({ default: ora }) => {
      if (!done) spinner = ora({ text, stream: out.stderr, isEnabled: true }).start();
    });
  }, SPINNER_DELAY_MS);
  try {
    return await fn();
  } finally {
    done = true;
    clearTimeout(timer);
    spinner?.stop();
  }
}
