// Scoring science figures of issue 11, each against its goal, measured in one run on this machine:
//  1. normalise + align + score 10,000 utterance pairs of 10–30 words with `whisper-en` and with `basic`
//     (goal: whisper-en at most 2× basic);
//  2. speaker bootstrap of 200 speakers × 50 utterances × 1,000 draws, single and paired (goal < 100 ms);
//  3. each audio condition on 10 s of 22.05 kHz audio (goal < 50 ms).
// With WER=1, also the WER local-sphinx gets on the Flite fixture under each condition.
// Usage: npm run build && node bench/scoring.mjs
import { readFileSync } from 'node:fs';

const { calculateAccuracy } = await import('../dist/shared/accuracy.js');
const { createPrng, speakerBootstrapCi, pairedSpeakerBootstrap } = await import('../dist/shared/stats.js');
const { parseCondition } = await import('../dist/shared/conditions.js');
const { applyCondition } = await import('../dist/server/audio/conditions.js');
const { resamplePcm16 } = await import('../dist/server/audio/resample.js');
const { decodeAudio } = await import('../dist/server/audio/decode.js');

const REPS = Number(process.env.REPS ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/**
 * Wall and CPU milliseconds of one call. On a machine shared with other work the wall time includes the
 * time other processes held the cores; the CPU time of this process is the work itself.
 */
const time = async (fn) => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
};
/** Median wall and CPU time over REPS calls. */
const measure = async (fn) => {
  const runs = [];
  for (let r = 0; r < REPS; r++) runs.push(await time(() => fn(r)));
  return { wall: median(runs.map((x) => x.wall)), cpu: median(runs.map((x) => x.cpu)) };
};
const fmt = (m) => `wall ${m.wall.toFixed(1)} ms, cpu ${m.cpu.toFixed(1)} ms`;
console.log(`load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')} on ${(await import('node:os')).availableParallelism()} cores`);

// 1. Transcript-like pairs: mixed case, punctuation, numbers spelled or written, contractions, British spellings.
const random = createPrng(2026);
const pick = (xs) => xs[Math.floor(random() * xs.length)];
const VOCAB = (
  'the a of to and in that it for on with as was at by this from they we you he she his her their our ' +
  'meeting tomorrow morning call back after please colour centre organise travelling programme behaviour ' +
  "don't won't it's I'm they're Mario's twenty one hundred five thirty six first 21st 10:00 $5 3.5 5% Mr. Dr. " +
  'uh um people market report Monday London system network voice quality number street'
).split(' ');
const sentence = () => {
  const n = 10 + Math.floor(random() * 21);
  return Array.from({ length: n }, (_, i) => {
    const w = pick(VOCAB);
    return (i === 0 ? w[0].toUpperCase() + w.slice(1) : w) + (random() < 0.08 ? ',' : '');
  }).join(' ') + '.';
};
const pairs = Array.from({ length: 10_000 }, () => {
  const ref = sentence();
  const hyp = ref
    .split(' ')
    .filter(() => random() > 0.05)
    .map((w) => (random() < 0.08 ? pick(VOCAB) : w))
    .join(' ');
  return [ref, hyp];
});
const scoreAll = (normalizer) => {
  for (const [ref, hyp] of pairs) calculateAccuracy(ref, hyp, { normalizer });
};
scoreAll('basic');
scoreAll('whisper-en'); // warm-up
const runs = { basic: [], 'whisper-en': [] };
for (let r = 0; r < REPS; r++) {
  // alternate the order so neither normaliser always runs on a warmer or busier machine
  for (const name of r % 2 ? ['whisper-en', 'basic'] : ['basic', 'whisper-en']) runs[name].push(await time(() => scoreAll(name)));
}
const summary = (xs) => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) });
const basic = summary(runs.basic);
const whisper = summary(runs['whisper-en']);
const rate = (ms) => Math.round(10_000 / (ms / 1000)).toLocaleString('en');
console.log(`10,000 pairs of 10–30 words, normalise + align + score (median of ${REPS}):`);
console.log(`  basic       ${fmt(basic)}  ${rate(basic.wall)} pairs/s`);
console.log(`  whisper-en  ${fmt(whisper)}  ${rate(whisper.wall)} pairs/s`);
console.log(`  whisper-en / basic = ${(whisper.wall / basic.wall).toFixed(2)}× wall, ${(whisper.cpu / basic.cpu).toFixed(2)}× cpu (goal ≤ 2×)`);

// 2. Bootstrap.
const rows = [];
for (let s = 0; s < 200; s++) {
  const skill = random() * 0.3;
  for (let u = 0; u < 50; u++) {
    const words = 10 + Math.floor(random() * 21);
    rows.push({ speaker: `spk${s}`, referenceWords: words, errors: Math.round(words * skill * random() * 2) });
  }
}
const other = rows.map((r) => ({ ...r, errors: Math.max(0, r.errors + (random() < 0.5 ? -1 : 1)) }));
speakerBootstrapCi(rows, { seed: 1 });
const single = await measure((i) => speakerBootstrapCi(rows, { seed: i }));
const paired = await measure((i) => pairedSpeakerBootstrap(rows, other, { seed: i }));
console.log(`bootstrap, 200 speakers × 50 utterances × 1,000 draws (median of ${REPS}, goal < 100 ms):`);
console.log(`  single  ${fmt(single)}`);
console.log(`  paired  ${fmt(paired)}`);

// 3. Conditions on 10 s of 22.05 kHz speech (the Flite fixture, resampled and repeated).
const fixture = await decodeAudio(readFileSync(new URL('../fixtures/speech-slt.wav', import.meta.url)));
const speech = await resamplePcm16(fixture.pcm, fixture.sampleRate, 22_050);
const tenSeconds = new Int16Array(22_050 * 10);
for (let i = 0; i < tenSeconds.length; i++) tenSeconds[i] = speech[i % speech.length];
const audio = { pcm: tenSeconds, sampleRate: 22_050 };
console.log(`conditions on 10 s of 22.05 kHz audio (median of ${REPS}, goal < 50 ms each):`);
for (const c of ['clean', 'telephone', 'noise:5', 'speed:0.8', 'speed:1.5']) {
  const condition = parseCondition(c);
  await applyCondition(audio, condition, { seed: 0 }); // warm-up (loads the resampler)
  console.log(`  ${c.padEnd(10)} ${fmt(await measure((r) => applyCondition(audio, condition, { seed: r })))}`);
}

if (process.env.WER === '1') {
  const { createLocalSphinxAdapter } = await import('../dist/server/engines/stt/local-sphinx.js');
  const { encodeWav } = await import('../dist/server/audio/wav.js');
  const sentence = 'Please call me back after the meeting tomorrow morning.';
  const adapter = createLocalSphinxAdapter();
  console.log('local-sphinx on the Flite fixture, WER per condition:');
  for (const c of ['clean', 'telephone', 'noise:40', 'noise:30', 'noise:20', 'noise:10', 'noise:0', 'speed:0.8', 'speed:0.9', 'speed:1.1', 'speed:1.25', 'speed:1.5']) {
    const a = await applyCondition({ pcm: fixture.pcm, sampleRate: fixture.sampleRate }, parseCondition(c), { seed: 1 });
    const out = await adapter.transcribe({ pcm: a.pcm, sampleRate: a.sampleRate, durationSeconds: a.pcm.length / a.sampleRate, wav: encodeWav(a.pcm, a.sampleRate) }, { signal: AbortSignal.timeout(60_000) });
    console.log(`  ${c.padEnd(10)} WER ${calculateAccuracy(sentence, out.transcript).wer.toFixed(4)}  "${out.transcript}"`);
  }
}
