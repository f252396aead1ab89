#!/usr/bin/env node
// Evaluation benchmark (issue 12). Run `npm run build` first; spawns the built `voxctl serve`.
// An evaluation of 20 texts × 8 speakers (4 Flite, 4 eSpeak) × 3 conditions on local-sphinx, against
// its two parts measured in the same run on the same server:
//   synthesis alone   — the same 160 text × speaker pairs as batch jobs (the same TTS pool), run first;
//   recognition alone — the evaluation's 480 conditioned audios sent to /v1/stt/transcribe, as many at
//                       once as the machine has cores (local-sphinx's own limit).
// Goal: evaluation wall ≤ 1.15 × max(synthesis alone, recognition alone) — the pipeline overlaps them.
// Also the server's resident memory (sampled during the evaluation, and its peak): goal < 300 MB.
// BENCH_RUNS (default 3), BENCH_TEXTS (default 20) and BENCH_PER_GROUP (default 4) scale it.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { api, cpuSeconds, memory, serve, sqliteDriver, stop } from './lib/service.mjs';
import { SENTENCES } from './lib/sentences.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TEXTS = Number(process.env.BENCH_TEXTS ?? 20);
const PER_GROUP = Number(process.env.BENCH_PER_GROUP ?? 4);
const CONDITIONS = ['clean', 'telephone', 'noise:5'];
const KEY = 'vox_' + 'B'.repeat(40);
const Database = await sqliteDriver();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

const texts = Array.from({ length: TEXTS }, (_, i) => (i < SENTENCES.length ? SENTENCES[i] : `${SENTENCES[i % SENTENCES.length]} Number ${i}.`));

async function runOnce(run) {
  const server = await serve({ key: KEY, prefix: 'voxctl-bench-eval-' });
  try {
    // The same voices for all three phases: PER_GROUP Flite and PER_GROUP eSpeak speakers of the catalogue.
    const catalogue = new Database(join(server.dataDir, 'voxctl.db'), { readonly: true });
    const pick = (engine) =>
      catalogue.prepare(`SELECT id FROM speakers WHERE engine = ? AND (engine = 'flite' OR voice LIKE 'en%') ORDER BY seq LIMIT ? OFFSET ?`).pluck().all(engine, PER_GROUP, run * 3);
    const speakers = [...pick('flite'), ...pick('espeak')];
    catalogue.close();

    // --- synthesis alone: every text × speaker pair as batch jobs (this also loads both engines in
    // every TTS worker, so the memory measured next is the evaluation's on top of a warm server) --------
    const pairs = texts.flatMap((text) => speakers.map((speaker_id) => ({ speaker_id, text })));
    const t1 = performance.now();
    const c1 = cpuSeconds(server.pid);
    const jobs = [];
    for (let i = 0; i < pairs.length; i += 100) jobs.push((await api(server, 'POST', '/v1/tts/batch', { items: pairs.slice(i, i + 100) })).job_id);
    for (const id of jobs) {
      for (;;) {
        const job = await api(server, 'GET', `/v1/jobs/${id}`);
        if (!['pending', 'processing'].includes(job.status)) break;
        await sleep(100);
      }
    }
    const synthesis = performance.now() - t1;
    const synthesisCpu = cpuSeconds(server.pid) - c1;
    const warm = memory(server.pid).rss;

    // --- the evaluation -------------------------------------------------------------------------------
    let maxRss = 0;
    const sampler = setInterval(() => {
      maxRss = Math.max(maxRss, memory(server.pid).rss);
    }, 200);
    const t0 = performance.now();
    const c0 = cpuSeconds(server.pid);
    const created = await api(server, 'POST', '/v1/evaluations', {
      name: `bench ${run}`,
      texts,
      speakers: { ids: speakers, group_by: 'engine', seed: run },
      providers: ['local-sphinx'],
      conditions: CONDITIONS,
    });
    let detail;
    for (;;) {
      detail = await api(server, 'GET', `/v1/evaluations/${created.evaluation_id}`);
      if (!['pending', 'processing'].includes(detail.status)) break;
      await sleep(250);
    }
    const wall = performance.now() - t0;
    const wallCpu = cpuSeconds(server.pid) - c0;
    clearInterval(sampler);
    if (detail.status !== 'completed') throw new Error(`evaluation ended ${detail.status}`);
    const utterances = [];
    for (let offset = 0; ; offset += 100) {
      const page = await api(server, 'GET', `/v1/evaluations/${created.evaluation_id}/utterances?limit=100&offset=${offset}`);
      utterances.push(...page.items);
      if (!page.has_more) break;
    }

    // --- recognition alone: the conditioned audio the evaluation made ------------------------------------
    const queue = utterances.map((u) => u.audio_url);
    const t2 = performance.now();
    const c2 = cpuSeconds(server.pid);
    await Promise.all(
      Array.from({ length: availableParallelism() }, async () => {
        for (let url = queue.shift(); url; url = queue.shift()) {
          await api(server, 'POST', '/v1/stt/transcribe', { audio_url: url, providers: ['local-sphinx'] });
        }
      }),
    );
    const recognition = performance.now() - t2;
    const recognitionCpu = cpuSeconds(server.pid) - c2;
    const mem = memory(server.pid);
    const all = detail.summary.filter((r) => r.group === 'all').map((r) => `${r.condition} ${r.wer}`).join(', ');
    return { wall, synthesis, recognition, wallCpu, synthesisCpu, recognitionCpu, warm, maxRss, peak: mem.peak, utterances: utterances.length, all };
  } finally {
    await stop(server);
  }
}

console.log(`evaluation of ${TEXTS} texts × ${PER_GROUP * 2} speakers × ${CONDITIONS.length} conditions on local-sphinx, ${availableParallelism()} cores`);
for (let run = 1; run <= RUNS; run++) {
  const r = await runOnce(run);
  const ratio = r.wall / Math.max(r.synthesis, r.recognition);
  console.log(
    `run ${run}: ${r.utterances} utterances; evaluation ${seconds(r.wall)}, synthesis alone ${seconds(r.synthesis)}, ` +
      `recognition alone ${seconds(r.recognition)} → ${ratio.toFixed(2)}× the larger (goal ≤ 1.15); ` +
      `CPU ${r.wallCpu.toFixed(0)} s vs ${r.synthesisCpu.toFixed(0)} + ${r.recognitionCpu.toFixed(0)} s for the parts (${(r.wallCpu / (r.synthesisCpu + r.recognitionCpu)).toFixed(2)}×); ` +
      `server RSS ${r.warm.toFixed(0)} MB warm (both engines in every TTS worker), max ${r.maxRss.toFixed(0)} MB during the evaluation, ` +
      `peak ${r.peak.toFixed(0)} MB (goal < 300); WER ${r.all}`,
  );
}
