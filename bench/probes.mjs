// Probes (issue 22): the entity matcher's checks per second on one core, against a baseline measured in the
// same run (the basic normaliser over the same transcripts: the cheapest thing every scored utterance
// already pays). Goal: ≥ 10,000 matcher checks/s per core. Then 200 non-speech clips: goal ≤ 1 s.
// Usage: npm run build && node bench/probes.mjs
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const dist = (p) => import(pathToFileURL(resolve('dist', p)).href);
const { entitySentences, entityFound, ENTITY_TYPES } = await dist('shared/entities/index.js');
const { getNormalizer } = await dist('shared/normalizers/index.js');
const basic = getNormalizer('basic');

// 1,600 sentences: 200 of each type, written the way vendors format them and the way voices say them.
const sentences = entitySentences([...ENTITY_TYPES], 200, 42);
const written = {
  digits: (v) => v,
  phone: (v) => `(${v.slice(2, 5)}) ${v.slice(5, 8)}-${v.slice(8)}`,
  number: (v) => Number(v).toLocaleString('en-US'),
  money: (v) => `$${v}`,
  date: (v) => { const [y, m, d] = v.split('-'); return `${['January','February','March','April','May','June','July','August','September','October','November','December'][Number(m) - 1]} ${Number(d)}, ${y}`; },
  time: (v) => { const [h, m] = v.split(':').map(Number); return `${h % 12 || 12}:${String(m).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'}`; },
  email: (v) => v,
  code: (v) => v,
};
const cases = sentences.flatMap((s) => [
  { entity: s.entity, transcript: s.text },
  { entity: s.entity, transcript: s.text.replace(/[^.]*$/, '').replace(/^(.*?)( is | at | on | to | of | for | reads | holds | counted | leaves | starts | close )(.*)$/, (_, a, b) => `${a}${b}${written[s.entity.type](s.entity.value)}.`) },
]);

function timeIt(fn, rounds) {
  for (let i = 0; i < 2; i++) fn(); // warm-up
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

let found = 0;
const matcherMs = timeIt(() => {
  found = 0;
  for (const c of cases) if (entityFound(c.entity, c.transcript)) found++;
}, 15);
const baselineMs = timeIt(() => {
  for (const c of cases) basic.normalize(c.transcript);
}, 15);
const perSecond = (cases.length / matcherMs) * 1000;
console.log(`entity matcher: ${cases.length} checks in ${matcherMs.toFixed(1)} ms (median of 15) = ${Math.round(perSecond).toLocaleString('en-US')} checks/s on one core (goal ≥ 10,000)`);
console.log(`baseline, basic normaliser over the same transcripts: ${baselineMs.toFixed(1)} ms → the matcher costs ${(matcherMs / baselineMs).toFixed(2)}× a normalisation`);
console.log(`recovered ${found}/${cases.length} (spoken forms and vendor-style written forms)`);

// Non-speech clips (DESIGN §12.1): generating 200 clips of 5 s (the probe's maximum count at its default
// length) — goal ≤ 1 s — against a baseline from the same run: allocating and filling the same samples
// with zeros, the least any generator must do.
const { nonSpeechClips } = await dist('server/audio/non-speech.js');
const { NON_SPEECH_KINDS } = await dist('shared/non-speech.js');
let samples = 0;
const clipsMs = timeIt(() => {
  samples = nonSpeechClips({ clips: 200, seconds: 5, kinds: [...NON_SPEECH_KINDS], seed: 7 }).reduce((n, c) => n + c.audio.pcm.length, 0);
}, 5);
const zerosMs = timeIt(() => {
  for (let i = 0; i < 200; i++) new Int16Array(5 * 16_000).fill(0);
}, 5);
console.log(`non-speech clips: 200 × 5 s (${(samples / 1e6).toFixed(1)} M samples) in ${clipsMs.toFixed(0)} ms (median of 5; goal ≤ 1,000 ms) — ${(clipsMs / zerosMs).toFixed(1)}× allocating the same samples as zeros (${zerosMs.toFixed(1)} ms)`);
