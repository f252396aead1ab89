#!/usr/bin/env node
// Corpus benchmark (issue 20). Run `npm run build` first; spawns the built `voxctl serve` and CLI.
// A generated audiofolder corpus of BENCH_UTTERANCES (default 1,000) FLAC files made with sox from the
// pocketsphinx-testdata recordings (each at its own speed, so no two files are alike; ~1 hour of audio),
// measured against baselines taken in the same run on the same files:
//   upload   — `voxctl corpus upload DIR` (a tar streamed from the directory, extracted, every file
//              decoded and stored) vs decoding the same files with the service's decoding alone (its pool
//              of decoding threads, as many as the service gives an upload, each file written as a WAV)
//              — goal ≤ 1.3×; the server's RSS is sampled every 100 ms during the upload — goal ≤ 300 MB;
//   evaluate — an evaluation of a seeded sample of BENCH_SAMPLE (default 200) utterances on local-sphinx
//              (clean) vs pocketsphinx_continuous run directly on the same audio (16 kHz raw, prepared
//              before the clock starts), as many at once as cores — goal ≤ 1.1×; BENCH_SAMPLE=0 skips it.
//              (local-sphinx hears clips of up to 30 s with warm pocketsphinx_batch decoders, so it may
//              beat the baseline; the evaluation's CPU is the server's and its recognisers', live or not.)
// FLAC is decoded by the WebAssembly decoders on the server's decoding threads (DESIGN §17.4), so the upload's
// CPU is the server's own and the baseline's is this process's.
// Prints figures and ratios — wall time, and CPU seconds (the server's, or this process's and its reaped
// children: PocketSphinx, the CLI), which other tenants of a shared machine do not move; asserts nothing.
// BENCH_RUNS (default 3) repeats it. BENCH_CORPUS_DIR keeps the generated corpus there and reuses it on the
// next run with the same BENCH_UTTERANCES (generating 1,000 files takes a minute or two).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { api, cpuSeconds, memory, serve, stop, treeCpuSeconds } from './lib/service.mjs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

const run = promisify(execFile);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const UTTERANCES = Number(process.env.BENCH_UTTERANCES ?? 1000);
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 200);
const CORES = availableParallelism();
const KEY = 'vox_' + 'C'.repeat(40);
const BIN = new URL('../bin/voxctl.js', import.meta.url).pathname;
const TESTDATA = '/usr/share/pocketsphinx/test/data';
const { createDecodePool, defaultDecodeThreads } = await import(new URL('../dist/server/audio/decode-pool.js', import.meta.url).href);
const { decodeWavToPcm16 } = await import(new URL('../dist/server/audio/wav.js', import.meta.url).href);
const { resamplePcm16 } = await import(new URL('../dist/server/audio/resample.js', import.meta.url).href);
const { resolveSphinx, sphinxArgs } = await import(new URL('../dist/server/engines/stt/local-sphinx.js', import.meta.url).href);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

const RECORDINGS = [
  ...[
    ['0870', 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them'],
    ['0880', 'he was not an ill disposed young man'],
    ['0890', 'unless to be rather cold hearted and rather selfish is to be ill disposed'],
    ['0920', 'had he married a more a amiable woman he might have been made still more respectable than he was'],
    ['0930', 'he might even have been made amiable himself'],
  ].map(([n, text]) => ({ file: `${TESTDATA}/librivox/sense_and_sensibility_01_austen_64kb-${n}.wav`, text })),
  ...[
    ['001', 'ten of clubs'],
    ['002', 'four queen of clubs'],
    ['003', 'seven of clubs'],
    ['004', 'five five'],
    ['005', 'eight of spades four of clubs seven of hearts'],
  ].map(([n, text]) => ({ file: `${TESTDATA}/cards/${n}.wav`, text })),
];

/** Runs `fn` over `items` with `n` workers. */
async function pool(items, n, fn) {
  const queue = items.map((item, i) => [item, i]);
  await Promise.all(
    Array.from({ length: n }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await fn(next[0], next[1]);
    }),
  );
}

/** An audiofolder corpus of UTTERANCES FLAC files (20 speakers, gender metadata) under `dir`. */
async function generateCorpus(dir) {
  mkdirSync(join(dir, 'audio'), { recursive: true });
  const lines = ['file_name,transcription,speaker_id,gender'];
  const items = Array.from({ length: UTTERANCES }, (_, i) => {
    const rec = RECORDINGS[i % RECORDINGS.length];
    // Speeds 0.88..1.12 (pitch moves too): every file differs, and the recogniser still has a chance.
    const speed = (0.88 + ((i * 7) % 13) * 0.02).toFixed(2);
    const name = `audio/u${String(i).padStart(4, '0')}.flac`;
    lines.push(`${name},${rec.text},spk${i % 20},${i % 2 ? 'female' : 'male'}`);
    return { rec, speed, name };
  });
  await pool(items, CORES, async (it) => {
    await run('sox', [it.rec.file, join(dir, it.name), 'speed', it.speed, 'pad', '0.15', '0.15']);
  });
  writeFileSync(join(dir, 'metadata.csv'), lines.join('\n') + '\n');
  let seconds = 0;
  let bytes = 0;
  for (const it of items) {
    seconds += Number((await run('soxi', ['-D', join(dir, it.name)])).stdout);
    bytes += statSync(join(dir, it.name)).size;
  }
  return { files: items.map((it) => join(dir, it.name)), seconds, bytes };
}

/**
 * The baseline of the upload: the same files through the service's own decoding (`createDecodePool`, as
 * many threads as the service gives an upload: one on 2 cores), each written as the WAV file the service
 * moves into its blob store — with nothing received, extracted, stored or committed.
 */
async function decodeAlone(files) {
  const limits = { maxBytes: 25 * 1024 * 1024, maxSeconds: 600 };
  const scratch = mkdtempSync(join(tmpdir(), 'voxctl-bench-decode-'));
  const pool = createDecodePool();
  try {
    await Promise.all(
      files.map(async (file, i) => {
        const outcome = await pool.decodeToFile(file, join(scratch, `${i}.wav`), limits);
        if (outcome instanceof Error || outcome === 'ffmpeg') throw new Error(`${file}: ${outcome}`);
      }),
    );
  } finally {
    await pool.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function runOnce(n, corpusDir, files) {
  const server = await serve({ key: KEY, prefix: 'voxctl-bench-corpus-' });
  try {
    // --- upload + decode through the CLI, RSS sampled ---------------------------------------------------
    let maxRss = memory(server.pid).rss;
    const idleRss = maxRss;
    const sampler = setInterval(() => {
      maxRss = Math.max(maxRss, memory(server.pid).rss);
    }, 100);
    const t0 = performance.now();
    const s0 = cpuSeconds(server.pid);
    const c0 = s0 + cpuSeconds(process.pid);
    const up = await run(process.execPath, [BIN, '--base-url', server.url, '--json', 'corpus', 'upload', corpusDir, '--name', `bench ${n}`], {
      env: { ...process.env, VOXCTL_API_KEY: KEY },
      maxBuffer: 64 * 1024 * 1024,
    });
    const upload = performance.now() - t0;
    // The server's CPU plus this process's reaped children (the CLI that tarred and sent the folder).
    const serverCpu = cpuSeconds(server.pid) - s0;
    const uploadCpu = cpuSeconds(server.pid) + cpuSeconds(process.pid) - c0;
    clearInterval(sampler);
    const corpus = JSON.parse(up.stdout);

    // --- the same files decoded alone ------------------------------------------------------------------------
    const t1 = performance.now();
    const c1 = cpuSeconds(process.pid);
    await decodeAlone(files);
    const decode = performance.now() - t1;
    const decodeCpu = cpuSeconds(process.pid) - c1;

    if (SAMPLE === 0) return { corpus, upload, decode, uploadCpu, serverCpu, decodeCpu, idleRss, maxRss };

    // --- evaluation of a sample on local-sphinx --------------------------------------------------------------
    const t2 = performance.now();
    // The server with its recognisers: warm decoders still running at the end have not been reaped yet.
    const c2 = treeCpuSeconds(server.pid);
    const created = await api(server, 'POST', '/v1/evaluations', {
      name: `bench ${n}`,
      corpus_id: corpus.corpus_id,
      sample: { size: SAMPLE, seed: n },
      providers: ['local-sphinx'],
    });
    let detail;
    for (;;) {
      detail = await api(server, 'GET', `/v1/evaluations/${created.evaluation_id}`);
      if (!['pending', 'processing'].includes(detail.status)) break;
      await sleep(200);
    }
    const evaluation = performance.now() - t2;
    const evaluationCpu = treeCpuSeconds(server.pid) - c2;
    if (detail.status !== 'completed') throw new Error(`evaluation ended ${detail.status}`);
    const utterances = [];
    for (let offset = 0; ; offset += 100) {
      const page = await api(server, 'GET', `/v1/evaluations/${created.evaluation_id}/utterances?limit=100&offset=${offset}`);
      utterances.push(...page.items);
      if (!page.has_more) break;
    }

    // --- PocketSphinx directly on the same audio (16 kHz raw prepared before the clock starts) ---------------
    const sphinx = resolveSphinx();
    if (typeof sphinx === 'string') throw new Error(sphinx);
    const rawDir = mkdtempSync(join(tmpdir(), 'voxctl-bench-raw-'));
    const raws = [];
    for (const [i, u] of utterances.entries()) {
      const wav = Buffer.from(await (await fetch(new URL(u.audio_url, server.url))).arrayBuffer());
      const { pcm, sampleRate } = decodeWavToPcm16(wav);
      const pcm16k = await resamplePcm16(pcm, sampleRate, 16000);
      const raw = join(rawDir, `${i}.raw`);
      writeFileSync(raw, Buffer.from(pcm16k.buffer, pcm16k.byteOffset, pcm16k.byteLength));
      raws.push(raw);
    }
    const t3 = performance.now();
    const c3 = cpuSeconds(process.pid);
    await pool(raws, CORES, async (raw) => {
      await run(sphinx.binary, sphinxArgs(sphinx, raw), { maxBuffer: 64 * 1024 * 1024 });
    });
    const direct = performance.now() - t3;
    const directCpu = cpuSeconds(process.pid) - c3;
    rmSync(rawDir, { recursive: true, force: true });
    const all = detail.summary.find((r) => r.group === 'all');
    return {
      corpus, upload, decode, uploadCpu, serverCpu, decodeCpu, idleRss, maxRss, evaluation, direct, evaluationCpu, directCpu,
      evaluated: utterances.length, wer: all?.wer, speakers: all?.speakers,
    };
  } finally {
    await stop(server);
  }
}

const keptDir = process.env.BENCH_CORPUS_DIR;
const corpusDir = keptDir ? join(keptDir, `corpus-${UTTERANCES}`) : mkdtempSync(join(tmpdir(), 'voxctl-bench-corpus-src-'));
const keptInfo = keptDir && join(keptDir, `corpus-${UTTERANCES}.json`);
try {
  const g0 = performance.now();
  let generated;
  if (keptInfo && existsSync(keptInfo)) generated = JSON.parse(readFileSync(keptInfo, 'utf8'));
  else {
    if (keptDir) rmSync(corpusDir, { recursive: true, force: true });
    generated = await generateCorpus(corpusDir);
    if (keptInfo) writeFileSync(keptInfo, JSON.stringify(generated));
  }
  console.log(
    `corpus: ${UTTERANCES} FLAC utterances, ${(generated.seconds / 60).toFixed(1)} min of audio, ${(generated.bytes / 1e6).toFixed(0)} MB ` +
      `(generated in ${secs(performance.now() - g0)}); evaluation sample ${SAMPLE}; ${CORES} cores, ${defaultDecodeThreads()} decoding thread(s)`,
  );
  for (let n = 1; n <= RUNS; n++) {
    const r = await runOnce(n, corpusDir, generated.files);
    console.log(
      `run ${n}: upload + decode ${secs(r.upload)} (${r.corpus.utterances} utterances, ${r.corpus.total_duration_seconds} s) vs decoding alone ${secs(r.decode)} → ` +
        `${(r.upload / r.decode).toFixed(2)}× (goal ≤ 1.3; CPU ${r.uploadCpu.toFixed(1)} s (server ${r.serverCpu.toFixed(1)} s, CLI ${(r.uploadCpu - r.serverCpu).toFixed(1)} s) vs ${r.decodeCpu.toFixed(1)} s → ${(r.uploadCpu / r.decodeCpu).toFixed(2)}×); server RSS ${r.idleRss.toFixed(0)} MB idle, max ${r.maxRss.toFixed(0)} MB during the upload (goal ≤ 300)` +
        (r.evaluated === undefined ? '' : '; ' +
        `evaluation of ${r.evaluated} utterances on local-sphinx ${secs(r.evaluation)} vs PocketSphinx directly ${secs(r.direct)} → ` +
        `${(r.evaluation / r.direct).toFixed(2)}× (goal ≤ 1.1; CPU ${r.evaluationCpu.toFixed(0)} s vs ${r.directCpu.toFixed(0)} s → ${(r.evaluationCpu / r.directCpu).toFixed(2)}×); WER ${r.wer} over ${r.speakers} speakers`),
    );
  }
} finally {
  if (!keptDir) rmSync(corpusDir, { recursive: true, force: true });
}
