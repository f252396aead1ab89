#!/usr/bin/env node
// Server memory through a whole evaluation (issue 18 item 7). Run `npm run build` first; spawns the built
// `voxctl serve` (default worker count: one TTS worker per core) on a fresh data dir, then an evaluation
// that uses both engines — BENCH_TEXTS (default 8) texts × 2 Flite and 2 eSpeak speakers × 3 conditions on
// local-sphinx (PocketSphinx runs as child processes, so its memory is not the server's).
// The server runs in the environment voxctl gives a service it starts (one malloc arena, as deploy/ does).
// The server's RSS is sampled every 100 ms from /proc; the peak is also read from VmHWM, which no sampling
// gap can miss. Baseline, measured in the same run on the same process: the idle server right after start.
// Goal: peak ≤ 250 MB through the evaluation on Node 20 and 26 (issue 32), both engines in use. Asserts nothing.
// BENCH_RUNS (default 3) repeats it on a new server each time.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { api, memory, sampleRss, serve, serviceEnv, settle, sqliteDriver, stop } from './lib/service.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TEXTS = Number(process.env.BENCH_TEXTS ?? 8);
const GOAL_MB = 250;
const KEY = 'vox_' + 'M'.repeat(40);
const SENTENCES = [
  'Press two for technical support.',
  'Your order number is four five seven two.',
  'The meeting moved to Thursday at three.',
  'Please hold while we connect your call.',
  'We have received your payment, thank you.',
  'Say yes to confirm or no to start again.',
  'The train to the airport leaves at seven.',
  'Turn left at the second traffic light.',
];
const texts = Array.from({ length: TEXTS }, (_, i) => `${SENTENCES[i % SENTENCES.length]}${i < SENTENCES.length ? '' : ` Number ${i}.`}`);
const Database = await sqliteDriver();

async function runOnce(run) {
  const server = await serve({ key: KEY, prefix: 'voxctl-bench-memory-', args: process.env.BENCH_WORKERS ? ['--workers', process.env.BENCH_WORKERS] : [] });
  try {
    const idle = memory(server.pid).rss;
    const catalogue = new Database(join(server.dataDir, 'voxctl.db'), { readonly: true });
    const pick = (engine) =>
      catalogue.prepare(`SELECT id FROM speakers WHERE engine = ? AND (engine = 'flite' OR voice LIKE 'en%') ORDER BY seq LIMIT 2 OFFSET ?`).pluck().all(engine, run);
    const speakers = [...pick('flite'), ...pick('espeak')];
    catalogue.close();
    const sampler = sampleRss(server.pid);
    const created = await api(server, 'POST', '/v1/evaluations', {
      name: `memory ${run}`,
      texts,
      speakers: { ids: speakers, group_by: 'engine', seed: run },
      providers: ['local-sphinx'],
      conditions: ['clean', 'telephone', 'noise:5'],
    });
    const detail = await settle(server, `/v1/evaluations/${created.evaluation_id}`);
    const { rss: sampled, anon, file } = sampler.stop();
    if (detail.status !== 'completed') throw new Error(`evaluation ended ${detail.status}`);
    const { rss: after, peak } = memory(server.pid);
    return { idle, sampled, anon, file, peak, after, utterances: detail.progress?.total ?? texts.length * speakers.length * 3 };
  } finally {
    await stop(server);
  }
}

console.log(`server memory through an evaluation of ${TEXTS} texts × 4 speakers (2 Flite, 2 eSpeak) × 3 conditions, ${availableParallelism()} cores, node ${process.version}`);
// As voxctl and deploy/ start the service; `MALLOC_ARENA_MAX=64 node bench/memory.mjs` measures glibc's default.
// (glibc's dynamic mmap threshold cannot be asked for by a value: unset MALLOC_MMAP_THRESHOLD_ in SERVICE_ENV_DEFAULTS to measure it.)
const env = await serviceEnv();
console.log(`service environment: MALLOC_ARENA_MAX=${env.MALLOC_ARENA_MAX} MALLOC_MMAP_THRESHOLD_=${env.MALLOC_MMAP_THRESHOLD_}`);
const peaks = [];
for (let run = 1; run <= RUNS; run++) {
  const r = await runOnce(run);
  peaks.push(r.peak);
  console.log(
    `run ${run}: idle ${r.idle.toFixed(0)} MB (baseline); during the evaluation max sampled ${r.sampled.toFixed(0)} MB, ` +
      `peak (VmHWM) ${r.peak.toFixed(0)} MB = ${(r.peak / r.idle).toFixed(2)}× idle — ${r.peak <= GOAL_MB ? 'ok' : 'OVER'} (goal ≤ ${GOAL_MB} MB); ` +
      `after ${r.after.toFixed(0)} MB; ${r.utterances} utterances; ` +
      `max sampled RssAnon ${r.anon.toFixed(0)} MB, RssFile ${r.file.toFixed(0)} MB at the max sample (the node binary and libraries)`,
  );
}
console.log(`peak over ${RUNS} runs: ${Math.max(...peaks).toFixed(0)} MB (goal ≤ ${GOAL_MB} MB)`);
