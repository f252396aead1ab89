#!/usr/bin/env node
// Server start-up benchmark (issue 18 item 7): how long `voxctl serve` takes from spawn to its first answer,
// on a fresh data dir (migrations and the speaker catalogue written) and again on that same data dir
// (nothing to migrate), against a bare Fastify process spawned and answering in the same run — the floor of
// a Node process that loads a web framework. Every test file and every `voxctl` command that starts the
// local service pays this. Median of BENCH_RUNS (default 7) spawns each, round-robin. Run `npm run build`
// first. Asserts nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const BIN = new URL('../bin/voxctl.js', import.meta.url).pathname;
const BARE = `import Fastify from 'fastify'; const app = Fastify(); app.get('/health', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 }); console.error('listening on http://127.0.0.1:' + app.server.address().port);`;

/** Milliseconds from spawning `args` until the URL it prints answers `GET /health`; then stops it. */
async function timeToFirstAnswer(args) {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk) => {
      seen += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(seen);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${seen}`)));
  });
  const res = await fetch(`${url}/health`);
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const serveArgs = (dataDir) => [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'];

const dirs = [];
const times = { bare: [], fresh: [], again: [] };
try {
  await timeToFirstAnswer(['--input-type=module', '-e', BARE]); // warm the file cache
  for (let i = 0; i < RUNS; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-bench-start-'));
    dirs.push(dataDir);
    times.bare.push(await timeToFirstAnswer(['--input-type=module', '-e', BARE]));
    times.fresh.push(await timeToFirstAnswer(serveArgs(dataDir)));
    times.again.push(await timeToFirstAnswer(serveArgs(dataDir)));
  }
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

const base = median(times.bare);
console.log(`spawn → first answer, median of ${RUNS}, node ${process.version}`);
console.log(`bare Fastify (baseline)          ${base.toFixed(0).padStart(6)} ms  1.00x`);
for (const [label, xs] of [['voxctl serve, fresh data dir', times.fresh], ['voxctl serve, same data dir', times.again]]) {
  console.log(`${label.padEnd(32)} ${median(xs).toFixed(0).padStart(6)} ms  ${(median(xs) / base).toFixed(2)}x`);
}
