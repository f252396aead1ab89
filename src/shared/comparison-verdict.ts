/**
 * Verdicts of paired comparisons (DESIGN §8.3, §11.3, §15.1), decided once for the server's views, the
 * report page and the CLI. Pure, no TypeBox: the CLI loads it at start-up.
 *
 * A verdict never claims more than was measured: with fewer than 5 bootstrap blocks (speakers, or calls)
 * the percentile interval is little more than the range of a handful of draws — with 3 blocks about 1
 * draw in 27 resamples only one block, so an interval can reach 0 whatever the difference — and the
 * verdict is `inconclusive` whatever the interval says.
 */

/** Fewer bootstrap blocks than this and no interval is trusted (DESIGN §15.1). */
export const MIN_VERDICT_SPEAKERS = 5;

/** How a paired comparison of two providers reads (DESIGN §8.3). */
export const COMPARISON_VERDICTS = ['a_better', 'b_better', 'no_difference', 'inconclusive'] as const;
export type ComparisonVerdict = (typeof COMPARISON_VERDICTS)[number];

/** How a row of a comparison over time reads (DESIGN §11.3). */
export const COMPARE_VERDICTS = ['regressed', 'improved', 'no_change', 'inconclusive'] as const;
export type CompareVerdict = (typeof COMPARE_VERDICTS)[number];

/** True when `speakers` blocks are too few for any interval to decide (DESIGN §15.1). */
export const tooFewSpeakers = (speakers: number): boolean => speakers < MIN_VERDICT_SPEAKERS;

/**
 * The verdict of providers a and b (difference = WER a − WER b): `a_better` when the whole interval is
 * below 0, `b_better` when above, else `no_difference`; `inconclusive` with nothing in common or under 5
 * speakers.
 */
export function comparisonVerdict(ci95: readonly [number, number] | null, speakers: number): ComparisonVerdict {
  if (!ci95 || tooFewSpeakers(speakers)) return 'inconclusive';
  if (ci95[1] < 0) return 'a_better';
  if (ci95[0] > 0) return 'b_better';
  return 'no_difference';
}

/**
 * The verdict of a run against its baseline (difference = new − baseline): `regressed` when the whole
 * interval is above 0, `improved` when below, else `no_change`; `inconclusive` under 5 speakers.
 */
export function compareVerdict(ci95: readonly [number, number], speakers: number): CompareVerdict {
  if (tooFewSpeakers(speakers)) return 'inconclusive';
  if (ci95[0] > 0) return 'regressed';
  if (ci95[1] < 0) return 'improved';
  return 'no_change';
}

/** What the wording of a comparison reads. */
export interface WordedComparison {
  a: string;
  b: string;
  ci95: readonly [number, number] | null;
  p_equal?: number | null;
  speakers?: number;
  verdict?: ComparisonVerdict;
}

/**
 * A comparison in words, for the report page and the CLI: `stt-a better`, `tie`, `no significant
 * difference`, or why nothing can be concluded. Rows stored before verdicts were recorded are judged
 * from their interval as they were then.
 */
export function verdict(c: WordedComparison): string {
  if (!c.ci95) return 'not enough data';
  const v = c.verdict ?? comparisonVerdict(c.ci95, c.speakers ?? MIN_VERDICT_SPEAKERS);
  if (v === 'inconclusive') return `inconclusive: only ${c.speakers ?? 0} speakers`;
  if (c.p_equal === 1) return 'tie';
  if (v === 'a_better') return `${c.a} better`;
  if (v === 'b_better') return `${c.b} better`;
  return 'no significant difference';
}
