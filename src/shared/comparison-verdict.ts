/**
 * The verdict of a paired comparison of two providers (DESIGN §8.3), worded once for the report page and
 * the CLI. Pure, no TypeBox: the CLI loads it at start-up.
 */

/**
 * A provider is named better only when the 95% interval of the difference (a − b) excludes 0; otherwise
 * the data cannot tell the two apart. Equal WERs in every draw (`p_equal` 1) are a `tie`, not a loss.
 */
export function verdict(c: { a: string; b: string; ci95: readonly [number, number] | null; p_equal?: number | null }): string {
  if (!c.ci95) return 'not enough data';
  if (c.p_equal === 1) return 'tie';
  if (c.ci95[1] < 0) return `${c.a} better`;
  if (c.ci95[0] > 0) return `${c.b} better`;
  return 'no significant difference';
}
