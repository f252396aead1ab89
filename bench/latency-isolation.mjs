#!/usr/bin/env node
// Latency isolation benchmark (DESIGN §15.4, issue 30 item 4). Run `npm run build` first; spawns the
// built `voxctl serve`. A loopback vendor speaking OpenAI's `POST /v1/audio/transcriptions` (multipart in,
// `{"text"}` out) answers 150 ms after it has read each request, and is bound as `stt-b`. Per run, on one
// fresh server:
//   alone  — a corpus evaluation of BENCH_UTTERANCES (default 48) recordings on `stt-b` only: nothing is
//            synthesised, nothing recognised locally; the service only sends audio and scores answers;
//   beside — an evaluation of 12 texts × 4 voices (2 Flite, 2 eSpeak) on `stt-b` and `local-sphinx`:
//            synthesis and PocketSphinx keep both cores busy while the vendor's requests run.
// Prints the vendor's p50 latency as the service recorded it (the summary row of group `all`) in each,
// their ratio (goal ≤ 1.2), and the evaluation's `event_loop_lag_ms` where the server reports it. Asserts
// nothing. BENCH_RUNS (default 3) repeats it, each on a new server.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { performance } from 'node:perf_hooks';
import { api, cpuSeconds, serve, settle, sqliteDriver, stop } from './lib/service.mjs';
import { SENTENCES } from './lib/sentences.mjs';

const run = promisify(execFile);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const UTTERANCES = Number(process.env.BENCH_UTTERANCES ?? 48);
const VENDOR_MS = 150;
const KEY = 'vox_' + 'L'.repeat(40);
const BIN = new URL('../bin/voxctl.js', import.meta.url).pathname;
const { decodeWavToPcm16, encodeWav } = await import(new URL('../dist/server/audio/wav.js', import.meta.url).href);
const Database = await sqliteDriver();

const TEXTS = [...SENTENCES, 'The library closes early on public holidays.', 'Our flight was delayed by almost two hours.'];

/** The loopback vendor: answers every request 150 ms after reading its body; counts what it answered. */
async function startVendor() {
  let answered = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        answered++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'please call me back' }));
      }, VENDOR_MS),
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, answered: () => answered, close: () => new Promise((r) => server.close(r)) };
}

/** An audiofolder corpus of UTTERANCES WAV files: the Flite fixture, each with its own trailing silence. */
function writeCorpus(dir) {
  const speech = decodeWavToPcm16(readFileSync(new URL('../fixtures/speech-slt.wav', import.meta.url)));
  mkdirSync(join(dir, 'audio'), { recursive: true });
  const lines = ['file_name,transcription,speaker_id'];
  for (let i = 0; i < UTTERANCES; i++) {
    const pcm = new Int16Array(speech.pcm.length + Math.round(speech.sampleRate * 0.01 * (i + 1)));
    pcm.set(speech.pcm);
    const name = `audio/u${String(i).padStart(3, '0')}.wav`;
    writeFileSync(join(dir, name), encodeWav(pcm, speech.sampleRate));
    lines.push(`${name},please call me back,spk${i % 8}`);
  }
  writeFileSync(join(dir, 'metadata.csv'), lines.join('\n') + '\n');
}

/** The finished evaluation's `stt-b` row of group `all`, and the view's event-loop lag. */
async function evaluate(server, body) {
  const t0 = performance.now();
  const c0 = cpuSeconds(server.pid);
  const created = await api(server, 'POST', '/v1/evaluations', body);
  const detail = await settle(server, `/v1/evaluations/${created.evaluation_id}`, 200);
  if (detail.status !== 'completed') throw new Error(`evaluation ended ${detail.status}`);
  // CPU seconds of the server and its reaped children (PocketSphinx) per wall second: 2 = both cores busy.
  const busy = (cpuSeconds(server.pid) - c0) / ((performance.now() - t0) / 1000);
  const row = detail.summary.find((r) => r.provider === 'stt-b' && r.group === 'all');
  if (row.failed_requests > 0) throw new Error(`${row.failed_requests} vendor requests failed`);
  return { p50: row.latency_ms.p50, p95: row.latency_ms.p95, utterances: row.utterances, lag: detail.event_loop_lag_ms, busy };
}

async function runOnce(n, configPath, corpusDir) {
  const server = await serve({ key: KEY, prefix: 'voxctl-bench-latency-', args: ['--config', configPath] });
  try {
    const up = await run(process.execPath, [BIN, '--base-url', server.url, '--json', 'corpus', 'upload', corpusDir, '--name', `latency ${n}`], {
      env: { ...process.env, VOXCTL_API_KEY: KEY },
    });
    const corpus = JSON.parse(up.stdout);
    const alone = await evaluate(server, { name: `alone ${n}`, corpus_id: corpus.corpus_id, providers: ['stt-b'] });

    const catalogue = new Database(join(server.dataDir, 'voxctl.db'), { readonly: true });
    const pick = (engine) =>
      catalogue.prepare(`SELECT id FROM speakers WHERE engine = ? AND (engine = 'flite' OR voice LIKE 'en%') ORDER BY seq LIMIT 2 OFFSET ?`).pluck().all(engine, n * 2);
    const speakers = [...pick('flite'), ...pick('espeak')];
    catalogue.close();
    const beside = await evaluate(server, {
      name: `beside ${n}`,
      texts: TEXTS,
      speakers: { ids: speakers, group_by: 'engine', seed: n },
      providers: ['stt-b', 'local-sphinx'],
    });
    return { alone, beside };
  } finally {
    await stop(server);
  }
}

const lagText = (lag) => (lag ? `event-loop lag p50 ${lag.p50} ms, p99 ${lag.p99} ms` : 'event-loop lag not reported');
const vendor = await startVendor();
const work = mkdtempSync(join(tmpdir(), 'voxctl-bench-latency-src-'));
try {
  const env = `VOXCTL_BENCH_VENDOR_KEY_${process.pid}`;
  process.env[env] = 'bench-key';
  const configPath = join(work, 'voxctl.config.json');
  writeFileSync(configPath, JSON.stringify({ stt: { providers: { 'stt-b': { adapter: 'openai', model: 'whisper-1', base_url: vendor.url, api_key_env: env, timeout_ms: 60_000 } } } }));
  const corpusDir = join(work, 'corpus');
  writeCorpus(corpusDir);
  console.log(`loopback vendor answering after ${VENDOR_MS} ms; alone: ${UTTERANCES} corpus recordings; beside: ${TEXTS.length} texts × 4 voices with local-sphinx`);
  const ratios = [];
  for (let n = 0; n < RUNS; n++) {
    const { alone, beside } = await runOnce(n, configPath, corpusDir);
    const ratio = beside.p50 / alone.p50;
    ratios.push(ratio);
    console.log(`run ${n + 1}: vendor p50 alone ${alone.p50} ms (p95 ${alone.p95}, ${alone.utterances} requests; ${alone.busy.toFixed(2)} cores busy; ${lagText(alone.lag)})`);
    console.log(`       vendor p50 beside local-sphinx and synthesis ${beside.p50} ms (p95 ${beside.p95}, ${beside.utterances} requests; ${beside.busy.toFixed(2)} cores busy; ${lagText(beside.lag)})`);
    console.log(`       ratio ${ratio.toFixed(2)}x  (goal ≤ 1.2x)`);
  }
  console.log(`ratios: ${ratios.map((r) => r.toFixed(2)).join(', ')}; vendor answered ${vendor.answered()} requests`);
} finally {
  await vendor.close();
  rmSync(work, { recursive: true, force: true });
}
