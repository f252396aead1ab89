import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { seedSqliteDataDir } from './sqlite-template.js';

/** The built launcher the end-to-end tests spawn (run `npm run build` first; `npm test` does). */
export const BIN = fileURLToPath(new URL('../../bin/voxctl.js', import.meta.url));

/** A private HOME, XDG dirs, config dir and data dir for one test file. */
export interface Sandbox {
  root: string;
  home: string;
  configDir: string;
  dataDir: string;
  /** The environment a spawned CLI gets: only PATH/LANG from ours, the sandbox dirs, FORCE_COLOR=0. */
  env: Record<string, string>;
  cleanup(): void;
}

/** Creates a sandbox; D-Bus variables are left out so the OS keychain of the machine is never touched. */
export function createSandbox(extra: Record<string, string> = {}): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'voxctl-cli-'));
  const home = join(root, 'home');
  const configDir = join(root, 'config');
  const dataDir = join(root, 'data');
  for (const d of [home, join(home, '.config'), join(home, '.local/share')]) mkdirSync(d, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    VOXCTL_CONFIG_DIR: configDir,
    VOXCTL_DATA_DIR: dataDir,
    FORCE_COLOR: '0',
    ...extra,
  };
  return { root, home, configDir, dataDir, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Options of one CLI run. */
export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string | Uint8Array;
  cwd?: string;
  timeout?: number;
}

/** Runs the built CLI with `args`; never throws on a non-zero exit (check `exitCode`). */
export async function runCli(sandbox: Sandbox, args: string[], opts: RunOptions = {}): Promise<{ exitCode: number | undefined; stdout: unknown; stderr: unknown }> {
  const env = Object.fromEntries(Object.entries({ ...sandbox.env, ...opts.env }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const r = await execa(process.execPath, [BIN, ...args], {
    env,
    extendEnv: false,
    reject: false,
    cwd: opts.cwd ?? sandbox.root,
    timeout: opts.timeout ?? 60_000,
    input: opts.input ?? '',
    encoding: 'buffer',
    stripFinalNewline: false,
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the CLI and decodes stdout/stderr as text. */
export async function cli(sandbox: Sandbox, args: string[], opts: RunOptions = {}): Promise<{ exitCode: number; stdout: string; stderr: string; raw: Buffer }> {
  const r = await runCli(sandbox, args, opts);
  const raw = Buffer.from(r.stdout as Uint8Array);
  return { exitCode: r.exitCode ?? -1, stdout: raw.toString('utf8'), stderr: Buffer.from(r.stderr as Uint8Array).toString('utf8'), raw };
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** True when something accepts connections on 127.0.0.1:`port`. */
export async function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(true));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(false)));
  });
}

/** A `voxctl serve --detach` on a free port of the sandbox's data dir, bootstrapped with `key`. */
export interface ServedCli {
  url: string;
  key: string;
  stop(): Promise<void>;
}

/** Starts the real service through the built CLI (detached) and returns its URL and bootstrap key. */
export async function serveDetached(sandbox: Sandbox, key = 'vox_' + 'C'.repeat(40)): Promise<ServedCli> {
  const port = await freePort();
  // A copy of the run's migrated SQLite template, unless the data dir has a database already.
  seedSqliteDataDir(sandbox.dataDir);
  const r = await cli(sandbox, ['serve', '--detach', '--port', String(port), '--log-level', 'warn'], { env: { VOXCTL_BOOTSTRAP_KEY: key }, timeout: 90_000 });
  if (r.exitCode !== 0) throw new Error(`serve --detach failed (${r.exitCode}): ${r.stderr}`);
  return {
    url: r.stdout.trim(),
    key: readFileSync(join(sandbox.dataDir, 'bootstrap-key'), 'utf8').trim(),
    stop: async () => {
      await cli(sandbox, ['serve', 'stop']);
    },
  };
}

/** True when the bytes are a RIFF/WAVE file. */
export const isWav = (b: Uint8Array): boolean => Buffer.from(b.subarray(0, 4)).toString('latin1') === 'RIFF' && Buffer.from(b.subarray(8, 12)).toString('latin1') === 'WAVE';

/** Any ANSI escape sequence (built from the ESC code point: lint forbids control characters in literals). */
export const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`);

/** The text without ANSI escape sequences. */
export const stripAnsi = (s: string): string => s.replace(new RegExp(ANSI.source, 'g'), '');

/** A sandbox with its own detached service and the client env that targets it (for a test file's beforeAll). */
export async function startServedSandbox(): Promise<{ sb: Sandbox; server: ServedCli; env: Record<string, string> }> {
  const sb = createSandbox();
  const server = await serveDetached(sb);
  return { sb, server, env: { VOXCTL_BASE_URL: server.url, VOXCTL_API_KEY: server.key } };
}
