#!/usr/bin/env node
// Streaming benchmark (issue 23). Run `npm run build` first; imports the built service from dist/.
// 50 concurrent real-time (pace 1.0) streams through the Deepgram live adapter and the shared frame
// scheduler, to a Deepgram-like fake in a CHILD process (its own event loop and clock, as a vendor's
// would be). Three runs; per run:
//  - frame-send jitter: how late frames left against their due time (p99 of each stream, then the
//    median and the worst of the 50) — goal: worst p99 <= 5 ms;
//  - latency measurement error: measured first_partial_ms / final_latency_ms minus the truth the fake
//    reports from its own clock (send time of the answer minus receipt of the frame that triggered it)
//    — goal: p95 <= 10 ms;
//  - CPU of this process (the "server" side: pacing, sending, receiving, measuring) per stream.
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 50);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const RATE = 16000;
// 3 s: silence to 300 ms, "speech" (a tone) to 2500 ms (the end of speech), silence to the end.
const LEAD_MS = 300;
const EOS_MS = 2500;
const AUDIO_MS = 3000;
const SCRIPT = [
  { afterAudioMs: 600, delayMs: 150, kind: 'partial', text: 'please' },
  { afterAudioMs: 1500, delayMs: 150, kind: 'partial', text: 'please call' },
  { afterAudioMs: EOS_MS, delayMs: 250, kind: 'final', text: 'please call me back' },
  { afterAudioMs: 'end', delayMs: 0, kind: 'final', text: '' },
];

if (process.argv[2] === '--fake') await runFake();
else await runBench();

/** The vendor side: a minimal Deepgram live fake that reports what it did, by stream tag, over IPC. */
async function runFake() {
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  const truths = {};
  wss.on('connection', (ws, req) => {
    const q = new URL(req.url, 'http://x').searchParams;
    const tag = q.get('keyterm');
    const bytesPerMs = (Number(q.get('sample_rate')) * 2) / 1000;
    let bytes = 0;
    let firstAt;
    let ended = false;
    let pending = 0;
    const fired = new Set();
    const t = (truths[tag] = {});
    const finish = () => {
      if (ended && pending === 0 && ws.readyState === ws.OPEN) {
        ws.send(JSON.stringify({ type: 'Metadata', request_id: tag }));
        ws.close(1000);
      }
    };
    const trigger = (heardAt) => {
      SCRIPT.forEach((s, i) => {
        if (fired.has(i) || (s.afterAudioMs === 'end' ? !ended : bytes / bytesPerMs < s.afterAudioMs)) return;
        fired.add(i);
        pending++;
        setTimeout(() => {
          pending--;
          const sentAt = performance.now();
          if (i === 0) t.first_partial_ms = sentAt - firstAt;
          if (i === 2) t.final_latency_ms = sentAt - heardAt;
          if (ws.readyState === ws.OPEN) {
            ws.send(JSON.stringify({ type: 'Results', is_final: s.kind === 'final', channel: { alternatives: [{ transcript: s.text, words: [] }] } }));
          }
          finish();
        }, Math.max(0, heardAt + s.delayMs - performance.now()));
      });
    };
    ws.on('message', (data, isBinary) => {
      const at = performance.now();
      if (isBinary) {
        firstAt ??= at;
        bytes += data.length;
      } else if (JSON.parse(data.toString()).type === 'CloseStream') ended = true;
      trigger(at);
      finish();
    });
  });
  await new Promise((r) => wss.on('listening', r));
  process.send({ port: wss.address().port });
  process.on('message', (m) => {
    if (m === 'truths') process.send({ truths });
    if (m === 'reset') for (const k of Object.keys(truths)) delete truths[k];
    if (m === 'exit') process.exit(0);
  });
}

async function runBench() {
  const { createDeepgramStreaming } = await import('../dist/server/engines/stt/streaming/deepgram.js');
  const { runStream, startBarrier } = await import('../dist/server/engines/stt/streaming/run.js');
  const { FrameScheduler } = await import('../dist/server/engines/stt/streaming/scheduler.js');
  const child = fork(new URL(import.meta.url).pathname, ['--fake'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = (msg, key) => new Promise((resolve) => {
    const on = (m) => {
      if (key in m) {
        child.off('message', on);
        resolve(m);
      }
    };
    child.on('message', on);
    if (msg) child.send(msg);
  });
  const { port } = await ask(null, 'port');
  const n = (ms) => Math.round((RATE * ms) / 1000);
  const pcm = new Int16Array(n(AUDIO_MS));
  for (let i = n(LEAD_MS); i < n(EOS_MS); i++) pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / RATE));
  const dg = createDeepgramStreaming({ baseUrl: `http://127.0.0.1:${port}`, model: null, pollIntervalMs: 10, apiKey: () => 'bench' });
  const scheduler = new FrameScheduler();
  const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];

  console.log(`streaming: ${STREAMS} concurrent streams of ${AUDIO_MS / 1000} s at pace 1.0, fake vendor in a child process; ${RUNS} runs (+1 warm-up)`);
  for (let run = 0; run <= RUNS; run++) {
    child.send('reset');
    const barrier = startBarrier(STREAMS);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: STREAMS }, (_, i) => runStream({ scheduler }, dg, { pcm, sampleRate: RATE }, { pace: 1, keyterms: [`s${i}`], barrier })));
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const { truths } = await ask('truths', 'truths');
    if (run === 0) continue;
    const failed = results.filter((r) => r.error);
    const jitter = results.map((r) => r.send_jitter_p99_ms);
    const errs = [];
    results.forEach((r, i) => {
      const t = truths[`s${i}`];
      if (!t || r.error) return;
      errs.push(Math.abs(r.first_partial_ms - t.first_partial_ms), Math.abs(r.final_latency_ms - t.final_latency_ms));
    });
    const pace = results.map((r) => r.achieved_pace ?? 0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(
      `run ${run}: send jitter p99 per stream: median ${q(jitter, 0.5).toFixed(2)} ms, worst ${Math.max(...jitter).toFixed(2)} ms (goal <= 5)` +
        ` | measurement error p95 ${q(errs, 0.95).toFixed(2)} ms, max ${Math.max(...errs).toFixed(2)} ms (goal <= 10)` +
        ` | CPU ${(cpuMs / STREAMS).toFixed(1)} ms per stream = ${((100 * cpuMs) / wall / STREAMS).toFixed(2)} % of a core per real-time stream` +
        ` | achieved pace ${Math.min(...pace).toFixed(4)}..${Math.max(...pace).toFixed(4)}` +
        (failed.length ? ` | ${failed.length} failed: ${failed[0].error.message}` : ''),
    );
  }
  child.send('exit');
}
