import { existsSync, mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_HOST, DEFAULT_PORT, SERVICE_ENV_DEFAULTS } from '../../shared/constants.js';
import { nodeRequest, type NodeAnswer } from '../../client/node-http.js';

/** Base URL of the embedded default service (DESIGN §1). */
export const EMBEDDED_BASE_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;
/** How long to wait for a freshly started service to answer /health. */
export const START_TIMEOUT_MS = 15_000;

/** `{dataDir}/server.json`, written by a running service. */
export interface ServerRecord {
  pid: number;
  port: number;
  host?: string;
  url: string;
  version: string;
  /** `sqlite`, or the shared PostgreSQL's URL with its password masked (DESIGN §9.1). */
  database?: string;
  /** The log file of a detached instance; null for one in the foreground (its log is its stdout). */
  log?: string | null;
}

/** Paths of the files a local service keeps in its data dir (DESIGN §5). */
export const localFiles = (dataDir: string) => ({
  serverJson: join(dataDir, 'server.json'),
  log: join(dataDir, 'serve.log'),
  bootstrapKey: join(dataDir, 'bootstrap-key'),
  autostarted: join(dataDir, 'autostarted.pid'),
});

/** The built launcher; spawned with the current Node so a global install and tests behave alike. */
export const launcherPath = (): string => fileURLToPath(new URL('../../../bin/voxctl.js', import.meta.url));

/** Reads `server.json`, or undefined when absent or unreadable. */
export function readServerRecord(dataDir: string): ServerRecord | undefined {
  try {
    return JSON.parse(readFileSync(localFiles(dataDir).serverJson, 'utf8')) as ServerRecord;
  } catch {
    return undefined;
  }
}

/** True when a process with `pid` exists (signal 0 probes without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * GET /health with a short timeout. Any HTTP answer means a service is running there (a 429 or 500 too:
 * starting a second one would only fail with EADDRINUSE); `version` is known only from a health body.
 * Undefined when nothing answers at all.
 */
export async function probeService(baseUrl: string, options: { timeoutMs?: number; apiKey?: string } = {}): Promise<{ status: number; version?: string; health?: string } | undefined> {
  let res: NodeAnswer;
  try {
    // node:http, as the client's JSON requests: a probe need not load fetch (undici).
    res = await nodeRequest(new URL('/health', baseUrl), {
      method: 'GET',
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      timeoutMs: options.timeoutMs ?? 1500,
    });
  } catch {
    return undefined;
  }
  try {
    const body = JSON.parse(res.body.toString('utf8')) as { version?: unknown; status?: unknown };
    if ((res.status === 200 || res.status === 503) && typeof body.version === 'string') {
      return { status: res.status, version: body.version, health: String(body.status ?? '') };
    }
  } catch {
    // Not a health body: still an answer.
  }
  return { status: res.status };
}

/** GET /health with a short timeout; undefined when nothing answers with a health body. */
export async function probeHealth(baseUrl: string, timeoutMs = 1500): Promise<{ version: string; status: string } | undefined> {
  try {
    const res = await nodeRequest(new URL('/health', baseUrl), { method: 'GET', headers: {}, timeoutMs });
    const text = res.body.toString('utf8');
    if (res.status !== 200 && res.status !== 503) return undefined;
    const body = JSON.parse(text) as { version?: string; status?: string };
    return { version: String(body.version ?? ''), status: String(body.status ?? '') };
  } catch {
    return undefined;
  }
}

/** Options of a detached start: where the data lives and where to listen. */
export interface StartOptions {
  dataDir: string;
  host: string;
  port: number;
  /** Extra `serve` flags (e.g. --config). */
  extraArgs?: string[];
  env: NodeJS.ProcessEnv;
  /** Record the pid as auto-started (so a version change may restart it). */
  autostarted?: boolean;
  timeoutMs?: number;
}

/**
 * Starts `voxctl serve` detached (own process group, output appended to `serve.log`) and waits until
 * /health answers; throws with the log's tail when it exits or stays silent.
 */
export async function startDetached(opts: StartOptions): Promise<{ pid: number; url: string; version: string }> {
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const files = localFiles(opts.dataDir);
  const logFd = openSync(files.log, 'a', 0o600);
  const args = [launcherPath(), 'serve', '--data-dir', opts.dataDir, '--host', opts.host, '--port', String(opts.port), ...(opts.extraArgs ?? [])];
  // The child must not inherit the client's variables as if they were its listen address.
  const { VOXCTL_LISTEN: _listen, VOXCTL_API_KEY: _key, VOXCTL_BOOTSTRAP_KEY: bootstrapKey, ...env } = opts.env;
  // A detached server's stderr is serve.log: it must not print the bootstrap key there (the CLI reads the 0600 file).
  env.VOXCTL_SERVE_DETACHED = '1';
  for (const [name, value] of Object.entries(SERVICE_ENV_DEFAULTS)) env[name] ??= value;
  // The bootstrap key goes through a pipe, never the child's environment (readable in /proc/PID/environ).
  if (bootstrapKey) args.push('--bootstrap-key-stdin');
  // Loaded here: most commands talk to a running service and never spawn one.
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, args, { detached: true, stdio: [bootstrapKey ? 'pipe' : 'ignore', logFd, logFd], env });
  closeSync(logFd);
  if (bootstrapKey && child.stdin) {
    child.stdin.on('error', () => undefined);
    child.stdin.end(bootstrapKey + '\n');
  }
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const pid = child.pid;
  child.unref();
  if (pid === undefined) throw new Error('could not spawn voxctl serve');
  const host = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `http://${host}:${opts.port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? START_TIMEOUT_MS);
  while (Date.now() < deadline && exited === undefined) {
    // Only our child counts: another service on the port makes the child exit with EADDRINUSE.
    const health = await probeHealth(url, 1000);
    if (health && readServerRecord(opts.dataDir)?.pid === pid) {
      // Recorded only once our child is the one serving: a loser of a start race must not claim the winner.
      if (opts.autostarted) writeFileSync(files.autostarted, String(pid));
      return { pid, url, version: health.version };
    }
    await sleep(100);
  }
  const tail = logTail(files.log, 5);
  if (exited === undefined) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  throw new Error(
    `voxctl serve ${exited !== undefined ? `exited (code ${exited})` : 'did not answer /health in time'}; see ${files.log}` +
      (tail ? `\n${tail}` : ''),
  );
}

/** Stops the service recorded in `server.json` (SIGTERM, then waits up to `timeoutMs`). */
export async function stopLocal(dataDir: string, timeoutMs = 10_000): Promise<{ stopped: boolean; pid?: number }> {
  const rec = readServerRecord(dataDir);
  if (!rec || !isAlive(rec.pid)) {
    if (rec) rmSync(localFiles(dataDir).serverJson, { force: true });
    return { stopped: false };
  }
  process.kill(rec.pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (isAlive(rec.pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(rec.pid)) process.kill(rec.pid, 'SIGKILL');
  rmSync(localFiles(dataDir).autostarted, { force: true });
  return { stopped: true, pid: rec.pid };
}

/** The last `n` lines of a log file ('' when absent). */
export function logTail(file: string, n: number): string {
  if (!existsSync(file)) return '';
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.slice(-n).join('\n');
}

/** True when the service recorded in `dataDir` was started by the CLI's autostart. */
export function wasAutostarted(dataDir: string, pid: number): boolean {
  try {
    return Number(readFileSync(localFiles(dataDir).autostarted, 'utf8').trim()) === pid;
  } catch {
    return false;
  }
}

/** Reads the bootstrap key the service wrote on first start, if any. */
export function readBootstrapKey(dataDir: string): string | undefined {
  try {
    const key = readFileSync(localFiles(dataDir).bootstrapKey, 'utf8').trim();
    return key || undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
