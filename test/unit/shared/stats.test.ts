import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { blockMedianCi, corpusWer, createPrng, latencyPercentiles, pairedSpeakerBootstrap, speakerBootstrapCi, type UtteranceScore } from '../../../src/shared/stats.js';

const row = (speaker: string, errors: number, referenceWords: number): UtteranceScore => ({ speaker, errors, referenceWords });

describe('createPrng', () => {
  it('is reproducible for a seed, different across seeds, uniform on [0, 1)', () => {
    const a = createPrng(5);
    const b = createPrng(5);
    const c = createPrng(6);
    const xs = Array.from({ length: 100_000 }, () => a());
    expect(Array.from({ length: 100_000 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 10 }, () => c())).not.toEqual(xs.slice(0, 10));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    // Ten equal bins hold 10,000 ± 400 each (4.3 standard deviations for this fixed seed).
    const bins = new Array<number>(10).fill(0);
    for (const x of xs) bins[Math.floor(x * 10)]!++;
    for (const n of bins) expect(Math.abs(n - 10_000)).toBeLessThan(400);
  });
});

describe('corpusWer', () => {
  it('is Σ errors / Σ reference words, not a mean of per-utterance rates', () => {
    const rows = [row('a', 2, 10), row('a', 0, 5), row('b', 3, 5)];
    expect(corpusWer(rows)).toBe(0.25); // the mean of rates would be (0.2 + 0 + 0.6) / 3 = 0.2667
    expect(corpusWer([row('a', 12, 4)])).toBe(3); // insertions: above 1, not clipped
    expect(corpusWer([])).toBe(0);
  });
});

describe('speakerBootstrapCi', () => {
  it('known answers: one speaker, or speakers of equal rate, give a zero-width interval', () => {
    expect(speakerBootstrapCi([row('a', 1, 4), row('a', 2, 4)], { seed: 1 })).toEqual([0.375, 0.375]);
    expect(speakerBootstrapCi([row('a', 1, 10), row('b', 2, 20), row('c', 3, 30)], { seed: 1 })).toEqual([0.1, 0.1]);
    expect(speakerBootstrapCi([], { seed: 1 })).toEqual([0, 0]);
  });

  it('known answer: two opposite speakers span [0, 1]', () => {
    // Draws are {a,a} → 0, {a,b} → 0.5, {b,b} → 1 with chances ¼, ½, ¼: both 2.5% tails sit on the extremes.
    expect(speakerBootstrapCi([row('a', 0, 10), row('b', 10, 10)], { seed: 3 })).toEqual([0, 1]);
  });

  it('resamples speakers, not utterances: correlated utterances widen the interval', () => {
    // 20 speakers × 10 utterances; half the speakers get every word wrong, half none.
    const rows = Array.from({ length: 200 }, (_, i) => row(`s${i % 20}`, i % 20 < 10 ? 5 : 0, 5));
    const [lo, hi] = speakerBootstrapCi(rows, { seed: 1 });
    const perUtterance = speakerBootstrapCi(rows.map((r, i) => ({ ...r, speaker: `u${i}` })), { seed: 1 });
    expect(hi - lo).toBeGreaterThan(2 * (perUtterance[1] - perUtterance[0]));
    expect(lo).toBeLessThan(0.5);
    expect(hi).toBeGreaterThan(0.5);
  });

  const rowsArb = fc.array(fc.record({ speaker: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), errors: fc.nat({ max: 30 }), referenceWords: fc.integer({ min: 1, max: 30 }) }), {
    minLength: 1,
    maxLength: 40,
  });

  it('the interval contains the point estimate and is rounded to 4 decimals', () => {
    fc.assert(
      fc.property(rowsArb, fc.integer(), (rows, seed) => {
        const [lo, hi] = speakerBootstrapCi(rows, { seed, draws: 400 });
        const wer = Math.round(corpusWer(rows) * 10_000) / 10_000;
        expect(lo).toBeLessThanOrEqual(wer);
        expect(hi).toBeGreaterThanOrEqual(wer);
        expect(Math.round(lo * 10_000) / 10_000).toBe(lo);
        expect(Math.round(hi * 10_000) / 10_000).toBe(hi);
      }),
      { numRuns: 300 },
    );
  });

  it('identical seeds give identical intervals; the default is 1,000 draws', () => {
    const rows = Array.from({ length: 60 }, (_, i) => row(`s${i % 12}`, (i * 7) % 5, 5 + (i % 4)));
    expect(speakerBootstrapCi(rows, { seed: 11 })).toEqual(speakerBootstrapCi(rows, { seed: 11 }));
    expect(speakerBootstrapCi(rows, { seed: 11 })).toEqual(speakerBootstrapCi(rows, { seed: 11, draws: 1000 }));
    expect(speakerBootstrapCi(rows, { seed: 11 })).not.toEqual(speakerBootstrapCi(rows, { seed: 11, draws: 999 }));
    expect(() => speakerBootstrapCi(rows, { seed: 1, draws: 0 })).toThrow(RangeError);
  });
});

describe('pairedSpeakerBootstrap', () => {
  const rowsArb = fc.array(fc.record({ speaker: fc.constantFrom('a', 'b', 'c', 'd'), errors: fc.nat({ max: 10 }), referenceWords: fc.integer({ min: 1, max: 10 }) }), {
    minLength: 1,
    maxLength: 30,
  });

  it('a system against itself: difference 0, interval [0, 0], never better, equal in every draw (a tie)', () => {
    fc.assert(
      fc.property(rowsArb, fc.integer(), (rows, seed) => {
        expect(pairedSpeakerBootstrap(rows, rows, { seed })).toEqual({ difference: 0, ci95: [0, 0], pABetter: 0, pAWorse: 0, pEqual: 1 });
      }),
      { numRuns: 200 },
    );
  });

  it('known answer: a better on every speaker gives a negative interval and p = 1', () => {
    const b = [row('x', 4, 10), row('y', 6, 10), row('z', 2, 10)];
    const a = b.map((r) => ({ ...r, errors: r.errors - 1 }));
    const res = pairedSpeakerBootstrap(a, b, { seed: 2 });
    expect(res.difference).toBe(-0.1);
    // Each draw's Δ is exactly −0.1: the same speakers, one error fewer per 10 words.
    expect(res.ci95).toEqual([-0.1, -0.1]);
    expect(res.pABetter).toBe(1);
    expect(res.pEqual).toBe(0);
    expect(pairedSpeakerBootstrap(b, a, { seed: 2 })).toEqual({ difference: 0.1, ci95: [0.1, 0.1], pABetter: 0, pAWorse: 1, pEqual: 0 });
  });

  it('p_equal counts the draws where both WERs are equal: better + equal + worse = all draws', () => {
    // Speaker x: a one error fewer; y and z: the same. A draw ties exactly when it holds no x.
    const b = [row('x', 4, 10), row('y', 6, 10), row('z', 2, 10)];
    const a = [row('x', 3, 10), row('y', 6, 10), row('z', 2, 10)];
    const res = pairedSpeakerBootstrap(a, b, { seed: 5, draws: 4000 });
    expect(res.pABetter + res.pEqual + res.pAWorse).toBeCloseTo(1, 10);
    // P(no x among 3 draws with replacement) = (2/3)³ ≈ 0.296.
    expect(res.pEqual).toBeGreaterThan(0.26);
    expect(res.pEqual).toBeLessThan(0.33);
  });

  it('the interval contains the difference; identical seeds give identical output', () => {
    fc.assert(
      fc.property(rowsArb, fc.array(fc.nat({ max: 10 }), { minLength: 30, maxLength: 30 }), fc.integer(), (a, errorsB, seed) => {
        const b = a.map((r, i) => ({ ...r, errors: errorsB[i]! }));
        const res = pairedSpeakerBootstrap(a, b, { seed, draws: 300 });
        expect(res.ci95[0]).toBeLessThanOrEqual(res.difference);
        expect(res.ci95[1]).toBeGreaterThanOrEqual(res.difference);
        expect(res.pABetter).toBeGreaterThanOrEqual(0);
        expect(res.pABetter).toBeLessThanOrEqual(1);
        expect(res.pABetter + res.pEqual).toBeLessThanOrEqual(1 + 1e-9);
        expect(pairedSpeakerBootstrap(a, b, { seed, draws: 300 })).toEqual(res);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses rows that are not the same utterances', () => {
    expect(() => pairedSpeakerBootstrap([row('a', 1, 2)], [], { seed: 1 })).toThrow(RangeError);
    expect(() => pairedSpeakerBootstrap([row('a', 1, 2)], [row('b', 1, 2)], { seed: 1 })).toThrow('paired row 0 has speakers a and b');
  });
});

describe('latencyPercentiles', () => {
  it('known answers (linear interpolation, whole milliseconds)', () => {
    expect(latencyPercentiles([10, 20, 30, 40, 50])).toEqual({ p50: 30, p95: 48 });
    expect(latencyPercentiles([50, 10, 40, 20, 30])).toEqual({ p50: 30, p95: 48 });
    expect(latencyPercentiles(Array.from({ length: 100 }, (_, i) => i + 1))).toEqual({ p50: 51, p95: 95 });
    expect(latencyPercentiles([7])).toEqual({ p50: 7, p95: 7 });
    expect(latencyPercentiles([])).toEqual({ p50: 0, p95: 0 });
  });
});

describe('blockMedianCi', () => {
  it('is the value itself when every block agrees, [0, 0] for nothing, and reproducible for a seed', () => {
    expect(blockMedianCi([{ block: 'a', value: 300 }, { block: 'b', value: 300 }], { seed: 1 })).toEqual([300, 300]);
    expect(blockMedianCi([], { seed: 1 })).toEqual([0, 0]);
    const rows = Array.from({ length: 40 }, (_, i) => ({ block: `s${i % 8}`, value: 200 + (i % 8) * 25 + (i % 3) }));
    expect(blockMedianCi(rows, { seed: 5 })).toEqual(blockMedianCi(rows, { seed: 5 }));
  });
  it('resamples blocks, not values: one slow speaker widens the interval, it does not vanish into many values', () => {
    const fast = Array.from({ length: 30 }, (_, i) => ({ block: `s${i % 6}`, value: 300 }));
    const slow = Array.from({ length: 30 }, () => ({ block: 'slow', value: 2000 }));
    const [lo, hi] = blockMedianCi([...fast, ...slow], { seed: 2 });
    expect(lo).toBe(300);
    // Half the values come from one speaker: a draw holding it twice or more moves the median to 2,000.
    expect(hi).toBe(2000);
  });
});
