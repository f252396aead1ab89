#!/usr/bin/env node
// Issue 3 benchmark: synthesis latency, long text vs native flite, batch throughput and real-time factors.
// Runs against the BUILT service (`npm run build` first): a real server on loopback with a temp data dir.
//   node bench/tts.mjs            (goals: a) p50 < 150 ms, b) voxctl <= native flite, c) speed-up >= 1.7x)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';

const dist = new URL('../dist/', import.meta.url);
const { startServer } = await import(new URL('server/start.js', dist).href);
const { createTtsPool } = await import(new URL('server/engines/tts/pool.js', dist).href);
const { parseWav } = await import(new URL('server/audio/wav.js', dist).href);
const Database = (await import(new URL('server/storage/sqlite-driver.js', dist).href)).loadSqliteDriver();

const KEY = 'vox_' + 'B'.repeat(40);
const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-bench-'));
const server = await startServer({ dataDir, host: '127.0.0.1', port: 0, allowPrivateAudioUrls: false, bootstrapKey: KEY, logLevel: 'silent' });
const db = new Database(join(dataDir, 'voxctl.db'));
// Enterprise limits: the benchmark sends more requests per minute than a pro key may.
db.prepare(`UPDATE users SET subscription_tier = 'enterprise'`).run();
const neutral = (engine, voice) =>
  db.prepare(`SELECT * FROM speakers WHERE engine = ? AND voice LIKE ? ORDER BY abs(pitch) + abs(rate - 1) * 10 LIMIT 1`).get(engine, voice);
const slt = neutral('flite', 'slt');
const espeak = neutral('espeak', 'en-us');
const binding = (row) => ({ engine: row.engine, voice: row.voice, ...(row.variant ? { variant: row.variant } : {}), pitch: row.pitch, rate: row.rate });

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const cpuMs = (u) => (u.user + u.system) / 1000;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const post = async (path, body) => {
  const res = await fetch(server.url + path, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${json.detail}`);
  return json;
};
const get = async (path) => (await fetch(server.url + path, { headers: { authorization: `Bearer ${KEY}` } })).json();

const SENTENCE_60 = 'The weather today is mild, with light wind from the west now.'.slice(0, 60);
const SENTENCES = [
  'Speech synthesis turns written text into audible words.',
  'Each sentence of a long text is synthesised on its own.',
  'The pieces are joined in order with a short pause between them.',
  'A worker pool keeps every processor core busy at the same time.',
  'Native programs run one sentence after another on a single core.',
  'Quality matters as much as speed for a voice testing service.',
];
let LONG = '';
for (let i = 0; LONG.length < 2000; i++) LONG += SENTENCES[i % SENTENCES.length] + ' ';
LONG = LONG.slice(0, 2000).replace(/\s+\S*$/, '.');

console.log(`voxctl TTS benchmark — ${availableParallelism()} CPUs, node ${process.version}, speaker ${slt.id} (flite slt)\n`);

// (a) one 60-character sentence through the API, p50 of 20 (after 3 warm-up calls).
for (let i = 0; i < 3; i++) await post('/v1/tts/synthesize', { speaker_id: slt.id, text: SENTENCE_60 });
const lat = [];
for (let i = 0; i < 20; i++) {
  const t0 = process.hrtime.bigint();
  await post('/v1/tts/synthesize', { speaker_id: slt.id, text: SENTENCE_60 });
  lat.push(ms(t0));
}
const p50 = pct(lat, 0.5);
console.log(`(a) 60-char synthesize: p50 ${p50.toFixed(1)} ms, p95 ${pct(lat, 0.95).toFixed(1)} ms  (goal < 150 ms: ${p50 < 150 ? 'met' : 'NOT met'})`);

// (b) a 2,000-character text via the API vs native flite on the same text and voice (best of 3 each).
const textFile = join(dataDir, 'long.txt');
writeFileSync(textFile, LONG);
const apiRuns = [];
let apiAudio = 0;
for (let i = 0; i < 3; i++) {
  const t0 = process.hrtime.bigint();
  const r = await post('/v1/tts/synthesize', { speaker_id: slt.id, text: LONG });
  apiRuns.push(ms(t0));
  apiAudio = r.duration_seconds;
}
const nativeRuns = [];
let nativeAudio = 0;
for (let i = 0; i < 3; i++) {
  const out = join(dataDir, 'native.wav');
  const t0 = process.hrtime.bigint();
  execFileSync('/usr/bin/flite', ['-voice', 'slt', '-f', textFile, '-o', out]);
  nativeRuns.push(ms(t0));
  nativeAudio = parseWav(readFileSync(out)).durationSeconds;
}
const api = Math.min(...apiRuns);
const native = Math.min(...nativeRuns);
console.log(
  `(b) ${LONG.length}-char text: voxctl API ${api.toFixed(0)} ms (${apiAudio.toFixed(1)} s audio) vs native flite ${native.toFixed(0)} ms ` +
    `(${nativeAudio.toFixed(1)} s audio) → ratio voxctl/native ${(api / native).toFixed(2)}  (goal <= 1.00: ${api <= native ? 'met' : 'NOT met'})`,
);

// (c) a 100-item batch through the API vs the same items one after another in one worker. The batch is
// timed by the job's own timestamps (created_at → completed_at, server clock) and polled at the CLI's
// `--watch` interval: this client shares the server's process, and polling every 25 ms cost ~1.5 s of CPU
// per batch here (measured), which a real client would not take from the server's two cores.
const items = Array.from({ length: 100 }, (_, i) => ({ speaker_id: slt.id, text: `${SENTENCES[i % SENTENCES.length]} Item ${i}.` }));
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const { job_id } = await post('/v1/tts/batch', { items });
let job;
do {
  await new Promise((r) => setTimeout(r, 500));
  job = await get(`/v1/jobs/${job_id}`);
} while (job.status === 'pending' || job.status === 'processing');
const observedMs = ms(t0);
const batchCpu = cpuMs(process.cpuUsage(cpu0));
if (job.status !== 'completed') throw new Error(`batch ended ${job.status}`);
const batchMs = Date.parse(job.completed_at) - Date.parse(job.created_at);
const single = createTtsPool({ size: 1 });
await single.synthesize('Warm up.', binding(slt));
const cpu1 = process.cpuUsage();
const t1 = process.hrtime.bigint();
for (const it of items) await single.synthesize(it.text, binding(slt));
const seqMs = ms(t1);
const seqCpu = cpuMs(process.cpuUsage(cpu1));
const speedup = seqMs / batchMs;
console.log(
  `(c) 100-item batch: ${(batchMs / 1000).toFixed(2)} s (seen by this client: ${(observedMs / 1000).toFixed(2)} s) = ${(100 / (batchMs / 1000)).toFixed(1)} items/s; one worker sequentially ` +
    `${(seqMs / 1000).toFixed(2)} s → speed-up ${speedup.toFixed(2)}x  (goal >= 1.7x: ${speedup >= 1.7 ? 'met' : 'NOT met'})`,
);

// The wall-clock ratio needs two free cores: with Linux autogroup scheduling every other busy session
// takes an equal share of the machine, whatever our thread count. CPU time does not depend on that: it
// shows what the batch path adds per item (HTTP, WAV encode, files, commits), i.e. the speed-up two free
// cores allow at most.
const [load1] = loadavg();
console.log(
  `    CPU: batch ${batchCpu.toFixed(0)} ms vs one worker ${seqCpu.toFixed(0)} ms for the same items → at most ` +
    `${((2 * seqCpu) / batchCpu).toFixed(2)}x on two free cores (load average during the run: ${load1.toFixed(1)})`,
);

// Real-time factor (audio seconds per compute second) of each engine, one worker, same sentences.
for (const [name, row] of [['flite (slt)', slt], ['espeak (en-us)', espeak]]) {
  if (!row) continue;
  let audio = 0;
  await single.synthesize('Warm up.', binding(row));
  const t = process.hrtime.bigint();
  for (const s of SENTENCES) {
    const out = await single.synthesize(s, binding(row));
    audio += out.pcm.length / out.sampleRate;
  }
  const secs = ms(t) / 1000;
  console.log(`RTF ${name}: ${(audio / secs).toFixed(1)}x real time (${audio.toFixed(1)} s audio in ${secs.toFixed(2)} s, one worker)`);
}
console.log(`RTF native flite (slt): ${(nativeAudio / (native / 1000)).toFixed(1)}x real time (incl. process start)`);

await single.close();
db.close();
await server.close();
rmSync(dataDir, { recursive: true, force: true });
