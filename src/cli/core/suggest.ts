import { editDistance } from '../../shared/accuracy/distance.js';

/**
 * The candidates closest to `value` by edit distance (case-insensitive, code points), nearest first:
 * those within a third of the longer word's length, else the `n` nearest anyway — a hint should
 * always offer something to try.
 */
export function closestValues(value: string, candidates: readonly string[], n = 3): string[] {
  const v = [...value.toLowerCase()];
  const scored = candidates.map((c) => {
    const chars = [...c.toLowerCase()];
    // A value that starts the candidate (`brit` → `British`) counts as near.
    const prefix = c.toLowerCase().startsWith(value.toLowerCase()) && v.length > 0;
    return { c, d: prefix ? 0 : editDistance(v, chars), len: Math.max(v.length, chars.length) };
  });
  scored.sort((a, b) => a.d - b.d || a.c.localeCompare(b.c));
  const near = scored.filter((s) => s.d <= Math.max(1, Math.floor(s.len / 3)));
  return (near.length ? near : scored).slice(0, n).map((s) => s.c);
}
