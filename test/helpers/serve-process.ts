import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { TEST_KEY } from './server.js';
import { backendFor } from './postgres.js';
import { seedSqliteDataDir } from './sqlite-template.js';

const BIN = fileURLToPath(new URL('../../bin/voxctl.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A foreground `voxctl serve` child of the built CLI, the URL it listens on and what it wrote to stderr. */
export interface ServeProcess {
  proc: ResultPromise;
  url: string;
  /** Everything the process wrote to stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in stderr (now or later); rejects if the process ends first. */
  waitForOutput(pattern: RegExp): Promise<RegExpExecArray>;
  /** Sends `signal` (default SIGTERM) and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** How to start it; every option has the default the crash tests rely on. */
export interface ServeProcessOptions {
  /** Extra environment (default: VOXCTL_BOOTSTRAP_KEY=TEST_KEY; pass `''` for a random bootstrap key). */
  env?: Record<string, string>;
  /** `--log-level` (default `silent`: the start-up lines go to stderr at every level). */
  logLevel?: string;
  /** More `serve` flags (e.g. `--workers 1`). */
  args?: string[];
  /** Start on an empty data dir that migrates from nothing (default: a copy of the migrated SQLite template). */
  freshDatabase?: boolean;
}

/**
 * The one way tests start `voxctl serve` as a process (the in-process app is `startTestServer`, the
 * detached service `serveDetached`): the built CLI on port 0 of `dataDir`, read until it says where it
 * listens, like an operator watching the console.
 */
export async function startServe(dataDir: string, opts: ServeProcessOptions = {}): Promise<ServeProcess> {
  // On the PostgreSQL project the data dir's own database (the same one when the dir starts again).
  const { databaseUrl } = await backendFor(dataDir);
  // On SQLite a copy of the run's migrated template, unless the data dir has a database (or `freshDatabase`).
  if (!databaseUrl && !opts.freshDatabase) seedSqliteDataDir(dataDir);
  const proc = execa('node', [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', opts.logLevel ?? 'silent', ...(opts.args ?? [])], {
    cwd: ROOT,
    env: { FORCE_COLOR: '0', VOXCTL_BOOTSTRAP_KEY: TEST_KEY, ...(databaseUrl ? { VOXCTL_DATABASE_URL: databaseUrl } : {}), ...opts.env },
    reject: false,
    stdin: 'ignore',
    stdout: 'ignore',
  });
  let stderr = '';
  let ended = false;
  const waiters = new Set<() => void>();
  proc.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const w of waiters) w();
  });
  void proc.finally(() => {
    ended = true;
    for (const w of waiters) w();
  });
  const waitForOutput = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(stderr);
        if (m) {
          waiters.delete(check);
          resolve(m);
        } else if (ended) {
          waiters.delete(check);
          reject(new Error(`voxctl serve ended without writing ${pattern}: ${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });
  const [, url] = await waitForOutput(/listening on (http:\/\/\S+)/);
  return {
    proc,
    url: url!,
    output: () => stderr,
    waitForOutput,
    async stop(signal = 'SIGTERM') {
      proc.kill(signal);
      await proc;
    },
  };
}
