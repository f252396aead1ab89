#!/usr/bin/env node
// /health latency while a 100-item batch synthesises (issue 10 item 5: the figure moved here from
// test/api/health-under-load.test.ts, which now checks event-loop freedom against an idle baseline).
// One built `voxctl serve` child; /health is probed every 40 ms with an enterprise key, first idle (the
// baseline of this machine right now), then during the batch. Reports p50/p99 of both and their ratio;
// goal: p99 under load < 100 ms and <= 5x the idle p99. Run `npm run build` first.
// Usage: node bench/health-under-load.mjs
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/voxctl.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-bench-health-'));
const env = { ...process.env, FORCE_COLOR: '0', VOXCTL_BOOTSTRAP_KEY: '' };
const key = execFileSync(process.execPath, [BIN, 'admin', 'users', 'create', '--email', 'bench@example.com', '--tier', 'enterprise', '--data-dir', dataDir], { env })
  .toString()
  .trim();

const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
const url = await new Promise((resolve, reject) => {
  let err = '';
  child.stderr.on('data', (c) => {
    err += c;
    const m = /listening on (http:\/\/\S+)/.exec(err);
    if (m) resolve(m[1]);
  });
  child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${err}`)));
});
const auth = { authorization: `Bearer ${key}` };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Round-trip times of /health probes, one every 40 ms, while `busy()` says so (at least `min` probes). */
async function probe(busy, min) {
  const ms = [];
  while (ms.length < min || (await busy())) {
    const t0 = performance.now();
    const res = await fetch(`${url}/health`, { headers: auth });
    await res.arrayBuffer();
    ms.push(performance.now() - t0);
    await sleep(40);
  }
  return ms.sort((a, b) => a - b);
}
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

try {
  const speakers = await (await fetch(`${url}/v1/speakers?limit=100`, { headers: auth })).json();
  const speaker = speakers.items.find((s) => s.engine === 'flite') ?? speakers.items[0];
  await probe(async () => false, 10); // warm up
  const idle = await probe(async () => false, 100);
  const items = Array.from({ length: 100 }, (_, i) => ({ speaker_id: speaker.id, text: `Health check under load, sentence ${i}. It has two parts.` }));
  const created = await (await fetch(`${url}/v1/tts/batch`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ items }) })).json();
  let checks = 0;
  const busy = async () => {
    if (++checks % 10 !== 0) return true;
    const job = await (await fetch(`${url}/v1/jobs/${created.job_id}`, { headers: auth })).json();
    return job.status === 'pending' || job.status === 'processing';
  };
  const loaded = await probe(busy, 10);
  const ratio = pct(loaded, 0.99) / pct(idle, 0.99);
  console.log(`idle   /health: p50 ${pct(idle, 0.5).toFixed(1)} ms, p99 ${pct(idle, 0.99).toFixed(1)} ms (${idle.length} probes)`);
  console.log(`loaded /health: p50 ${pct(loaded, 0.5).toFixed(1)} ms, p99 ${pct(loaded, 0.99).toFixed(1)} ms (${loaded.length} probes)`);
  console.log(`p99 loaded/idle ${ratio.toFixed(2)}x  ${pct(loaded, 0.99) < 100 && ratio <= 5 ? 'ok' : 'OVER (goal < 100 ms and <= 5x)'}`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
