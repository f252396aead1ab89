/**
 * Statistics of evaluations (DESIGN §8.3, EVALUATION-NOTES.md): corpus WER from per-utterance counts, a
 * speaker-block percentile bootstrap for one system and a paired one for two, latency percentiles.
 * Pure and deterministic: every random draw comes from a PRNG seeded by the caller.
 */

/** Bootstrap resamples when the caller does not say (DESIGN §8.3). */
export const DEFAULT_DRAWS = 1_000;

/**
 * A seeded uniform generator on [0, 1): sfc32 (a small, fast chaotic generator that passes PractRand),
 * its state filled from the seed by splitmix32 so nearby seeds give unrelated streams.
 */
export function createPrng(seed: number): () => number {
  let s = seed >>> 0;
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/** One scored utterance: its speaker (the resampling block), its edit count and its reference length. */
export interface UtteranceScore {
  speaker: string;
  errors: number;
  referenceWords: number;
}

/** Options of the bootstrap functions. */
export interface BootstrapOptions {
  /** Resamples (default 1,000). */
  draws?: number;
  /** Seed of the PRNG: the same seed and rows give the same interval. */
  seed: number;
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** Corpus WER: Σ errors / Σ reference words (0 for no words), not a mean of per-utterance rates. */
export function corpusWer(rows: readonly { errors: number; referenceWords: number }[]): number {
  let errors = 0;
  let words = 0;
  for (const r of rows) {
    errors += r.errors;
    words += r.referenceWords;
  }
  return words === 0 ? 0 : errors / words;
}

/** Per-speaker sums in order of first appearance: the blocks the bootstrap draws. */
function speakerTotals(rows: readonly UtteranceScore[], index: Map<string, number>): { errors: Float64Array; words: Float64Array } {
  for (const r of rows) if (!index.has(r.speaker)) index.set(r.speaker, index.size);
  const errors = new Float64Array(index.size);
  const words = new Float64Array(index.size);
  for (const r of rows) {
    const s = index.get(r.speaker)!;
    errors[s]! += r.errors;
    words[s]! += r.referenceWords;
  }
  return { errors, words };
}

/** The speakers of each draw (with replacement, as many as there are speakers), from the seeded PRNG. */
function drawSpeakers(speakers: number, options: BootstrapOptions): Int32Array[] {
  const draws = options.draws ?? DEFAULT_DRAWS;
  if (!Number.isInteger(draws) || draws < 1) throw new RangeError(`draws must be a positive integer, got ${draws}`);
  const random = createPrng(options.seed);
  const out: Int32Array[] = [];
  for (let b = 0; b < draws; b++) {
    const pick = new Int32Array(speakers);
    for (let k = 0; k < speakers; k++) pick[k] = Math.floor(random() * speakers);
    out.push(pick);
  }
  return out;
}

/** WER of one resample: Σ errors / Σ words over the drawn speakers (0 when they have no words). */
function drawWer(pick: Int32Array, errors: Float64Array, words: Float64Array): number {
  let e = 0;
  let n = 0;
  for (let k = 0; k < pick.length; k++) {
    const s = pick[k]!;
    e += errors[s]!;
    n += words[s]!;
  }
  return n === 0 ? 0 : e / n;
}

/** The 2.5th and 97.5th percentiles (linear interpolation between order statistics), rounded to 4 decimals. */
function percentileInterval(values: Float64Array): [number, number] {
  const sorted = values.slice().sort();
  return [round4(quantile(sorted, 0.025)), round4(quantile(sorted, 0.975))];
}

/** Quantile q of ascending `sorted` values, interpolating linearly between neighbours (NumPy's default). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * 95% percentile bootstrap interval of corpus WER that resamples speakers with replacement (all
 * utterances of a drawn speaker come along), rounded to 4 decimals. No rows → [0, 0].
 */
export function speakerBootstrapCi(rows: readonly UtteranceScore[], options: BootstrapOptions): [number, number] {
  const { errors, words } = speakerTotals(rows, new Map());
  if (errors.length === 0) return [0, 0];
  const picks = drawSpeakers(errors.length, options);
  const wers = new Float64Array(picks.length);
  for (let b = 0; b < picks.length; b++) wers[b] = drawWer(picks[b]!, errors, words);
  return percentileInterval(wers);
}

/** What `pairedSpeakerBootstrap` answers: WER(a) − WER(b), its 95% interval, P(a's WER < b's), P(a's WER > b's) and P(equal). */
export interface PairedBootstrap {
  difference: number;
  ci95: [number, number];
  pABetter: number;
  /** Share of draws with Δ* > 0 (ties count in neither share). */
  pAWorse: number;
  /** Share of draws where both WERs are equal: an exact tie has 1, so it never reads as a loss. */
  pEqual: number;
}

/**
 * Paired speaker bootstrap of two systems scored on the same utterances (`a[i]` and `b[i]` are one
 * utterance, same speaker): the same speaker draws serve both, Δ* = WER*(a) − WER*(b) per draw; the
 * interval is Δ*'s percentiles, `pABetter` the share of draws with Δ* < 0 and `pEqual` with Δ* = 0 (both
 * WERs share their denominator, the drawn reference words, so equal error counts give exactly 0).
 * Values rounded to 4 decimals.
 */
export function pairedSpeakerBootstrap(a: readonly UtteranceScore[], b: readonly UtteranceScore[], options: BootstrapOptions): PairedBootstrap {
  if (a.length !== b.length) throw new RangeError(`paired rows differ in length: ${a.length} and ${b.length}`);
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.speaker !== b[i]!.speaker) throw new RangeError(`paired row ${i} has speakers ${a[i]!.speaker} and ${b[i]!.speaker}`);
  }
  const difference = round4(corpusWer(a) - corpusWer(b));
  const index = new Map<string, number>();
  const ta = speakerTotals(a, index);
  const tb = speakerTotals(b, index);
  if (ta.errors.length === 0) return { difference, ci95: [0, 0], pABetter: 0, pAWorse: 0, pEqual: 1 };
  const picks = drawSpeakers(ta.errors.length, options);
  const deltas = new Float64Array(picks.length);
  let better = 0;
  let worse = 0;
  let equal = 0;
  for (let k = 0; k < picks.length; k++) {
    const d = drawWer(picks[k]!, ta.errors, ta.words) - drawWer(picks[k]!, tb.errors, tb.words);
    deltas[k] = d;
    if (d < 0) better++;
    else if (d > 0) worse++;
    else if (d === 0) equal++;
  }
  return {
    difference,
    ci95: percentileInterval(deltas),
    pABetter: round4(better / picks.length),
    pAWorse: round4(worse / picks.length),
    pEqual: round4(equal / picks.length),
  };
}

/**
 * Median and 95th percentile (linear interpolation, as `quantile`), rounded to whole milliseconds like
 * every `latency_ms` of the API; both 0 for no values.
 */
export function latencyPercentiles(valuesMs: readonly number[]): { p50: number; p95: number } {
  const sorted = Float64Array.from(valuesMs).sort();
  return { p50: Math.round(quantile(sorted, 0.5)), p95: Math.round(quantile(sorted, 0.95)) };
}

/**
 * 95% interval of the median of `rows[].value`, resampling their blocks (speakers) with replacement as
 * the WER intervals do, in whole units; [0, 0] for no rows. Used for latencies, whose spread comes as
 * much from the speaker (how long and how fast each voice speaks) as from the vendor.
 */
export function blockMedianCi(rows: readonly { block: string; value: number }[], options: BootstrapOptions): [number, number] {
  const byBlock = new Map<string, number[]>();
  for (const r of rows) {
    let list = byBlock.get(r.block);
    if (!list) byBlock.set(r.block, (list = []));
    list.push(r.value);
  }
  const blocks = [...byBlock.values()];
  if (blocks.length === 0) return [0, 0];
  const medians = new Float64Array(options.draws ?? DEFAULT_DRAWS);
  drawSpeakers(blocks.length, options).forEach((pick, b) => {
    const values: number[] = [];
    for (const k of pick) values.push(...blocks[k]!);
    medians[b] = quantile(Float64Array.from(values).sort(), 0.5);
  });
  const sorted = medians.sort();
  return [Math.round(quantile(sorted, 0.025)), Math.round(quantile(sorted, 0.975))];
}
