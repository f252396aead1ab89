// Median in-process time of calculateAccuracy on the 1,000-word pair of bench/server.mjs.
// Usage: npm run build && node bench/accuracy.mjs [path/to/accuracy.js]
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const target = resolve(process.argv[2] ?? 'dist/shared/accuracy.js');
const { calculateAccuracy } = await import(pathToFileURL(target).href);
const words = 'the quick brown fox jumps over a lazy dog while seven happy children sing loudly near old oak trees'.split(' ');
const sentence = (n, shift) => Array.from({ length: n }, (_, k) => words[(k * 7 + shift * (k % 5 === 0 ? 3 : 0)) % words.length]).join(' ');
const ref = sentence(1000, 0);
const hyp = sentence(1000, 1);
const runs = Number(process.env.RUNS ?? 50);
for (let i = 0; i < 50; i++) calculateAccuracy(ref, hyp); // warm-up
const times = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  calculateAccuracy(ref, hyp);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
console.log(`calculateAccuracy, 1,000-word pair: median ${q(0.5).toFixed(3)} ms, p10 ${q(0.1).toFixed(3)} ms, p90 ${q(0.9).toFixed(3)} ms over ${runs} calls`);
console.log(JSON.stringify(calculateAccuracy(ref, hyp)));
