#!/usr/bin/env node
// STT benchmark (issue 5). Run `npm run build` first; imports the built service from dist/.
//  1. local-sphinx real-time factor on ~30 s of speech (the Flite fixture nine times, with pauses), and
//     its latency against calling pocketsphinx_continuous directly on the same raw file in the same run
//     (goal: adapter overhead < 10 %).
//  1b. Short clips: BENCH_CLIPS (default 20) clips of the ~3 s fixture through the adapter (warm
//     pocketsphinx_batch decoders, one at a time, the first clip paying the model load) against a
//     pocketsphinx_continuous per clip, interleaved; wall time and CPU seconds (this process's reaped
//     children), the ratio adapter ÷ direct (the saving the warm decoders exist for).
//  2. Fan-out: nine fake OpenAI-compatible providers (100..300 ms each, real HTTP + multipart) in one
//     transcription vs the slowest one alone (goal: < 1.2x).
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { decodeWavToPcm16, encodeWav } from '../dist/server/audio/wav.js';
import { createLocalSphinxAdapter, resolveSphinx, sphinxArgs } from '../dist/server/engines/stt/local-sphinx.js';
import { createSttRegistry } from '../dist/server/engines/stt/registry.js';
import { cpuSeconds } from './lib/service.mjs';
import { transcribe } from '../dist/server/features/stt/transcription.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => `${ms.toFixed(0)} ms`;

// ~30 s of speech at 16 kHz: the fixture sentence nine times with 0.4 s pauses.
const one = decodeWavToPcm16(readFileSync(new URL('../fixtures/speech-slt.wav', import.meta.url)));
const pause = new Int16Array(Math.round(one.sampleRate * 0.4));
const parts = Array.from({ length: 9 }, () => [one.pcm, pause]).flat();
const pcm = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
let at = 0;
for (const p of parts) {
  pcm.set(p, at);
  at += p.length;
}
const seconds = pcm.length / one.sampleRate;
const audio = { pcm, sampleRate: one.sampleRate, durationSeconds: seconds, wav: encodeWav(pcm, one.sampleRate) };

// --- 1. local-sphinx vs pocketsphinx_continuous -------------------------------------------------------
const resolved = resolveSphinx();
if (typeof resolved === 'string') {
  console.log(`local-sphinx: skipped (${resolved})`);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-bench-'));
  const raw = join(dir, 'speech.raw');
  writeFileSync(raw, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  const adapter = createLocalSphinxAdapter({ maxConcurrent: 1 });
  const direct = [];
  const viaAdapter = [];
  let transcript = '';
  // Interleaved, so load changes on the machine hit both sides alike.
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now();
    const r = spawnSync(resolved.binary, sphinxArgs(resolved, raw), { encoding: 'utf8' });
    direct.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`pocketsphinx_continuous failed: ${r.stderr}`);
    t0 = performance.now();
    transcript = (await adapter.transcribe(audio, { signal: AbortSignal.timeout(300_000) })).transcript;
    viaAdapter.push(performance.now() - t0);
  }
  rmSync(dir, { recursive: true, force: true });
  const d = median(direct);
  const a = median(viaAdapter);
  console.log(`local-sphinx on ${seconds.toFixed(1)} s of speech (${RUNS} runs, median):`);
  console.log(`  pocketsphinx_continuous directly: ${fmt(d)}  (real-time factor ${(seconds / (d / 1000)).toFixed(2)}x: audio s per compute s)`);
  console.log(`  local-sphinx adapter:             ${fmt(a)}  (real-time factor ${(seconds / (a / 1000)).toFixed(2)}x)`);
  console.log(`  adapter overhead: ${(((a - d) / d) * 100).toFixed(1)} %  (goal < 10 %)`);
  console.log(`  words recognised: ${transcript.split(/\s+/).filter(Boolean).length}`);
}

// --- 1b. short clips: warm decoders vs a pocketsphinx_continuous per clip ---------------------------------
if (typeof resolved !== 'string') {
  const CLIPS = Number(process.env.BENCH_CLIPS ?? 20);
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-bench-'));
  const raw = join(dir, 'clip.raw');
  writeFileSync(raw, Buffer.from(one.pcm.buffer, one.pcm.byteOffset, one.pcm.byteLength));
  const clip = { pcm: one.pcm, sampleRate: one.sampleRate, durationSeconds: one.pcm.length / one.sampleRate, wav: encodeWav(one.pcm, one.sampleRate) };
  const measure = async (fn) => {
    const [w0, c0] = [performance.now(), cpuSeconds(process.pid)];
    await fn();
    return { wall: performance.now() - w0, cpu: cpuSeconds(process.pid) - c0 };
  };
  const rows = [];
  const heard = new Set();
  for (let i = 0; i < RUNS; i++) {
    const direct = await measure(async () => {
      for (let k = 0; k < CLIPS; k++) {
        const r = spawnSync(resolved.binary, sphinxArgs(resolved, raw), { encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`pocketsphinx_continuous failed: ${r.stderr}`);
      }
    });
    const warm = await measure(async () => {
      const adapter = createLocalSphinxAdapter({ maxConcurrent: 1 });
      for (let k = 0; k < CLIPS; k++) heard.add((await adapter.transcribe(clip, { signal: AbortSignal.timeout(120_000) })).transcript);
      await adapter.close(); // the decoder exits and is reaped: its CPU counts
    });
    rows.push({ direct, warm });
    console.log(
      `  run ${i + 1}: ${CLIPS} clips of ${clip.durationSeconds.toFixed(1)} s — continuous per clip ${fmt(direct.wall)} / ${direct.cpu.toFixed(2)} CPU-s, ` +
        `warm adapter ${fmt(warm.wall)} / ${warm.cpu.toFixed(2)} CPU-s: ${(warm.wall / direct.wall).toFixed(2)}x wall, ${(warm.cpu / direct.cpu).toFixed(2)}x CPU`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  const ratio = (k) => median(rows.map((r) => r.warm[k] / r.direct[k]));
  console.log(`short clips (median of ${RUNS}): warm adapter ÷ a pocketsphinx_continuous per clip = ${ratio('wall').toFixed(2)}x wall, ${ratio('cpu').toFixed(2)}x CPU; one transcript for every clip: ${heard.size === 1}`);
}

// --- 2. fan-out of nine providers vs the slowest alone ------------------------------------------------
const delays = [100, 125, 150, 175, 200, 225, 250, 275, 300];
const servers = await Promise.all(
  delays.map(
    (ms) =>
      new Promise((resolve) => {
        const server = createServer((req, res) => {
          req.resume();
          req.on('end', () => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'please call me back' })), ms));
        });
        server.listen(0, '127.0.0.1', () => resolve(server));
      }),
  ),
);
const tokens = ['stt-a-model-1', 'stt-a-model-2', 'stt-b', 'stt-c', 'stt-d', 'stt-e', 'stt-f', 'stt-g', 'stt-h'];
const providers = Object.fromEntries(tokens.map((t, i) => [t, { adapter: 'openai', model: 'whisper-1', base_url: `http://127.0.0.1:${servers[i].address().port}` }]));
const registry = createSttRegistry({ stt: { providers, localSphinx: {} } });
const shortAudio = encodeWav(one.pcm, one.sampleRate);
const run = async (list) => {
  const t0 = performance.now();
  const out = await transcribe({ registry, loadAudio: async () => shortAudio }, { audio_url: 'bench', providers: list });
  for (const [id, r] of Object.entries(out.results)) if (r.error) throw new Error(`${id}: ${r.error.message}`);
  return performance.now() - t0;
};
await run(tokens); // warm-up (connections, JIT)
const single = [];
const all = [];
for (let i = 0; i < Math.max(RUNS, 5); i++) {
  single.push(await run(['stt-h']));
  all.push(await run(tokens));
}
const s1 = median(single);
const s9 = median(all);
console.log(`fan-out (median of ${single.length}): slowest provider alone ${fmt(s1)}, all nine at once ${fmt(s9)}: ${(s9 / s1).toFixed(2)}x  (goal < 1.2x)`);
await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
