import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { TEST_KEY } from './server.js';

const BIN = new URL('../../bin/voxctl.js', import.meta.url).pathname;

/** A `voxctl serve` child of the built CLI and the URL it listens on. */
export interface ServeProcess {
  proc: ResultPromise;
  url: string;
}

/** Starts the built CLI's `serve` on `dataDir` (bootstrap key TEST_KEY) and waits for `server.json` and /health. */
export async function startServe(dataDir: string): Promise<ServeProcess> {
  rmSync(join(dataDir, 'server.json'), { force: true });
  const proc = execa('node', [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent'], {
    env: { VOXCTL_BOOTSTRAP_KEY: TEST_KEY, FORCE_COLOR: '0' },
    reject: false,
    stdio: 'ignore',
  });
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const file = join(dataDir, 'server.json');
    if (existsSync(file)) {
      try {
        const { port } = JSON.parse(readFileSync(file, 'utf8')) as { port: number };
        const url = `http://127.0.0.1:${port}`;
        if ((await fetch(`${url}/health`)).ok) return { proc, url };
      } catch {
        // not written completely / not listening yet
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  proc.kill('SIGKILL');
  throw new Error('voxctl serve did not start');
}
