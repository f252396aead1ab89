#!/usr/bin/env node
// Issue 34 benchmark: synthetic calls (DESIGN §16). Runs the BUILT code (`npm run build` first).
//   node --expose-gc bench/conversations.mjs [runs=3] [calls=100]
// Goals: a) building 100 calls of 12 turns with the production buildCall (synthesis + resampling + speech
// extents + layout + mixing) and writing their RTTM/STM <= 1.2x synthesising their turns alone (the
// baseline, measured in the same run);
// b) scoring DER and cpWER (with whole-call WER, dropped turns, loops) for 100 calls x 3 providers <= 2 s, as
// the work kind scores a call (scoreCallResult) and the summary sums a provider's calls (conversationSummary);
// c) memory flat in the number of calls: calls are built one at a time and their audio dropped once
// mixed; the peak heap (after a collection, run with --expose-gc) over the first quarter vs all calls.
import { availableParallelism } from 'node:os';
import { SENTENCES } from './lib/sentences.mjs';

const dist = new URL('../dist/', import.meta.url);
const load = (p) => import(new URL(p, dist).href);
const { createTtsPool } = await load('server/engines/tts/pool.js');
const { buildCall } = await load('server/features/evaluations/conversations/build-call.js');
const { callUtteranceId, plannedCalls } = await load('server/features/evaluations/conversations/create.js');
const { scoreCallResult, callScoreOf } = await load('server/features/evaluations/conversations/score-call.js');
const { getNormalizer } = await load('shared/normalizers/index.js');
const { wordsOf } = await load('shared/normalize.js');
const { createPrng } = await load('shared/stats.js');
const conv = await load('shared/conversations/index.js');

const RUNS = Number(process.argv[2] ?? 3);
const CALLS = Number(process.argv[3] ?? 100);
const TURNS = 12;
const VOICES = ['slt', 'rms', 'awb', 'kal16'].map((voice) => ({ engine: 'flite', voice, pitch: 0, rate: 1 }));
const SPEAKERS = VOICES.map((v) => v.voice);
const options = { calls: CALLS, turns: TURNS, speakersPerCall: 2, gapMs: [200, 800], overlap: 0.2 };
const planInput = (seed) => ({ options, seed, speakers: SPEAKERS, texts: SENTENCES.length });
const voiceOf = (id) => VOICES[SPEAKERS.indexOf(id)];
const now = () => performance.now();
const words = (t) => wordsOf(t, true);
const normalizer = getNormalizer('basic'); // an evaluation's default

const pool = createTtsPool({ size: availableParallelism() });
const cpu = () => {
  const u = process.cpuUsage(); // every thread of the process: the TTS workers too
  return (u.user + u.system) / 1000;
};
/** The synthesiser the build is given: a catalogue speaker's voice through the TTS pool, as in production. */
const synthesize = (speakerId, text) => pool.synthesize(text, voiceOf(speakerId));
/** Turn k of a plan synthesised (the same call the build makes). */
const synth = (plan, t) => synthesize(plan.speakers[t.slot], SENTENCES[t.textIndex]);

/**
 * Every call twice, back to back: its turns synthesised alone (the baseline), then the call built by the
 * evaluation's own buildCall (synthesis, 16 kHz, speech extents, layout, mix) and its RTTM and STM written. Interleaving call
 * by call puts both under the same load from other processes; wall and CPU time (all threads) are summed
 * for each. Only the truth of each call is kept; its audio is dropped once mixed.
 */
async function measure(seed) {
  const t = { synthWall: 0, synthCpu: 0, buildWall: 0, buildCpu: 0 };
  const truths = [];
  const peak = { quarter: 0, all: 0 };
  for (let n = 1; n <= CALLS; n++) {
    const plan = conv.planCall(planInput(seed), n);
    let w = now();
    let c = cpu();
    await Promise.all(plan.turns.map((turn) => synth(plan, turn)));
    t.synthWall += now() - w;
    t.synthCpu += cpu() - c;
    w = now();
    c = cpu();
    const built = await buildCall(plan, { texts: SENTENCES, synthesize });
    const file = callUtteranceId(n);
    // The exports as GET …/calls/{n}/reference.rttm and reference.stm write them from the stored truth.
    const exported = conv.writeRttm(file, built.truth).length + conv.writeStm(file, built.truth.map((x) => ({ ...x, words: x.text }))).length;
    if (exported === 0 || built.audio.pcm.length === 0) throw new Error('empty call');
    t.buildWall += now() - w;
    t.buildCpu += cpu() - c;
    truths.push(built.truth);
    // Peak live heap (after a collection; run with --expose-gc) over the first quarter of the calls and over all.
    if (n % 5 === 0 || n === CALLS) {
      global.gc?.();
      const heap = process.memoryUsage().heapUsed;
      if (n <= CALLS / 4) peak.quarter = Math.max(peak.quarter, heap);
      peak.all = Math.max(peak.all, heap);
    }
  }
  return { ...t, truths, peak };
}

/** A provider's answer made from the truth: word errors, a share of words given to the wrong speaker, an optional split speaker. */
function simulate(truth, random, { wordError, confusion, split }) {
  const out = [];
  for (const t of truth) {
    const ws = words(t.text);
    const step = (t.end - t.start) / ws.length;
    ws.forEach((w, i) => {
      if (random() < wordError) return; // deleted
      let speaker = t.speaker;
      if (random() < confusion) speaker = speaker === 'S1' ? 'S2' : 'S1';
      if (split && speaker === 'S2' && t.start > 20) speaker = 'S3';
      out.push({ text: random() < wordError ? 'uh' : w, start: t.start + i * step + 0.05, end: t.start + (i + 1) * step, speaker: `spk_${speaker}` });
    });
  }
  return { transcript: out.map((w) => w.text).join(' '), words: out, diarized: true, latency_ms: 1000, confidence: null };
}
const PROVIDERS = [
  { wordError: 0.03, confusion: 0.01, split: false },
  { wordError: 0.08, confusion: 0.05, split: false },
  { wordError: 0.12, confusion: 0.1, split: true },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`voxctl conversations benchmark — ${availableParallelism()} CPUs, node ${process.version}, ${CALLS} calls x ${TURNS} turns, flite voices, ${RUNS} runs\n`);
for (let n = 1; n <= 3; n++) {
  const plan = conv.planCall(planInput(99), n);
  await Promise.all(plan.turns.map((turn) => synth(plan, turn))); // warm the workers and the engines' assets
}

const rows = [];
for (let run = 1; run <= RUNS; run++) {
  const seed = run;
  const m = await measure(seed);
  const { truths } = m;
  // Hypotheses and references (each call's turns' texts in turn order, as the evaluation stores them) are
  // made outside the timed span; the baseline is the same scoring without diarization (whole-call WER,
  // dropped turns and loops alone) over the same answers.
  const references = plannedCalls({ options, seed, speakers: SPEAKERS.map((speakerId) => ({ speakerId })), texts: SENTENCES }).map((c) => c.reference);
  const random = createPrng(seed);
  const answers = truths.map((truth) => PROVIDERS.map((p) => simulate(truth, random, p)));
  /** Every call heard by every provider scored as the work kind scores it, then each provider's summary row's conversation columns. */
  const scoreAll = (diarized) =>
    PROVIDERS.map((_, p) => {
      const rows = truths.map((truth, c) => scoreCallResult(truth, references[c], { ...answers[c][p], diarized }, normalizer));
      return conv.conversationSummary(rows.map((r, c) => ({ call: callUtteranceId(c + 1), score: callScoreOf(r) })), { seed });
    });
  if (run === 1) scoreAll(true); // JIT warm-up
  let t0 = now();
  scoreAll(false);
  const werOnly = now() - t0;
  t0 = now();
  const summaries = scoreAll(true);
  const scoring = now() - t0;
  const der = summaries.map((x) => x.der);
  const row = { run, ...m, werOnly, scoring, der, heapQuarter: m.peak.quarter, heapAll: m.peak.all };
  rows.push(row);
  console.log(
    `run ${run}: synthesis alone ${(m.synthWall / 1000).toFixed(1)} s wall / ${(m.synthCpu / 1000).toFixed(1)} s CPU | build ${(m.buildWall / 1000).toFixed(1)} s / ${(m.buildCpu / 1000).toFixed(1)} s` +
      ` | ratio wall ${(m.buildWall / m.synthWall).toFixed(3)}, CPU ${(m.buildCpu / m.synthCpu).toFixed(3)} (goal <= 1.2)` +
      ` | scoring ${CALLS}x3 ${scoring.toFixed(0)} ms (goal <= 2000; WER-only baseline ${werOnly.toFixed(0)} ms, x${(scoring / werOnly).toFixed(2)})` +
      ` | DER per provider ${der.map((d) => `${(d * 100).toFixed(2)}%`).join(' / ')} | peak heap ${(row.heapQuarter / 2 ** 20).toFixed(1)} MB (${Math.floor(CALLS / 4)} calls) vs ${(row.heapAll / 2 ** 20).toFixed(1)} MB (${CALLS} calls), x${(row.heapAll / row.heapQuarter).toFixed(2)}`,
  );
}
console.log(
  `\nmedian of ${RUNS}: build/synthesis wall ${median(rows.map((r) => r.buildWall / r.synthWall)).toFixed(3)}, CPU ${median(rows.map((r) => r.buildCpu / r.synthCpu)).toFixed(3)}, scoring ${median(rows.map((r) => r.scoring)).toFixed(0)} ms, heap ${CALLS}/${Math.floor(CALLS / 4)} calls x${median(rows.map((r) => r.heapAll / r.heapQuarter)).toFixed(2)}`,
);
await pool.close();
