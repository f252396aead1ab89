/** Levenshtein distances of the accuracy metrics: bit-parallel (Myers) in a diagonal band (Ukkonen). */
import { internTokens } from './tokens.js';

/**
 * Levenshtein distance between two sequences (code points, words), unit costs. `bound`, when given, must
 * be an upper bound of the distance (the cost of any alignment): only a diagonal band that wide is computed.
 */
export function editDistance(a: readonly string[], b: readonly string[], bound?: number): number {
  const [pa, pb, alphabet] = internTokens(a, b);
  return editDistanceIds(pa, pb, alphabet, bound);
}

/**
 * Levenshtein distance of two id sequences with Myers' bit-vector algorithm in 32-row blocks (the block
 * step of edlib's `calculateBlock`). The common prefix and suffix are cut first (matched in some optimal
 * alignment). With an upper bound k (never more than max(n, m), itself a bound), only the blocks holding
 * the diagonals a path of cost <= k can visit are computed (Ukkonen's band, |d| + |(n − m) − d| <= k):
 * cells outside are never underestimated (new blocks start from a real path's cost, the band's top edge
 * assumes the largest step, +1), so a band result <= k is exact. Should the bound be wrong, the band result
 * exceeds it and the computation is repeated with the bound max(n, m).
 */
export function editDistanceIds(a: Int32Array, b: Int32Array, alphabet: number, bound = Infinity): number {
  let start = 0;
  let endA = a.length;
  let endB = b.length;
  while (start < endA && start < endB && a[start] === b[start]) start++;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  if (n === 0) return m;
  if (m === 0) return n;
  const sa = a.subarray(start, endA);
  const sb = b.subarray(start, endB);
  const most = Math.max(n, m);
  const k = Math.min(most, Math.max(bound, Math.abs(n - m)));
  const banded = bandedDistance(sa, sb, alphabet, k);
  return banded <= k ? banded : bandedDistance(sa, sb, alphabet, most);
}

/** The band computation of `editDistanceIds` (n, m >= 1, |n − m| <= k); Infinity if row n is never reached. */
function bandedDistance(a: Int32Array, b: Int32Array, alphabet: number, k: number): number {
  const n = a.length;
  const m = b.length;
  const slack = Math.floor((k - Math.abs(n - m)) / 2);
  const dMin = Math.min(0, n - m) - slack; // rows j + dMin .. j + dMax of column j
  const dMax = Math.max(0, n - m) + slack;
  const blocks = (n + 31) >>> 5;
  const last = blocks - 1;
  const lastShift = (n - 1) & 31;
  const lastHeight = n - 32 * last;
  // peq[c * blocks + q]: bit i set when a[32q + i] is symbol c.
  const peq = new Int32Array(alphabet * blocks);
  for (let i = 0; i < n; i++) peq[a[i]! * blocks + (i >>> 5)]! |= 1 << (i & 31);
  const pv = new Int32Array(blocks);
  const mv = new Int32Array(blocks);
  // Column 0: D[i][0] = i, all vertical steps +1. `bottom` is D at the last computed block's bottom row.
  let fb = 0;
  let lb = dMax >= n ? last : (Math.max(1, dMax) - 1) >>> 5;
  for (let q = 0; q <= lb; q++) pv[q] = -1;
  let bottom = Math.min(n, 32 * (lb + 1));
  for (let j = 1; j <= m; j++) {
    const low = j + dMax;
    const newLast = low >= n ? last : (low - 1) >>> 5;
    while (lb < newLast) {
      lb++;
      pv[lb] = -1; // mv[lb] is still 0: the block was never computed
      bottom += lb === last ? lastHeight : 32;
    }
    const top = j + dMin;
    if (top > 32) {
      const f = (Math.min(top, n) - 1) >>> 5;
      if (f > fb) fb = f;
    }
    const base = b[j - 1]! * blocks;
    const full = lb === last ? last : lb + 1; // blocks below `full` are 32 rows high
    let hin = 1; // the top row D[0][j] grows by one per column; inside the matrix, the band's upper edge
    for (let q = fb; q < full; q++) {
      const p = pv[q]!;
      const mm = mv[q]!;
      const hneg = hin >>> 31; // 1 when hin = -1
      let eq = peq[base + q]!;
      const xv = eq | mm;
      eq |= hneg;
      const xh = ((((eq & p) + p) | 0) ^ p) | eq;
      const ph = mm | ~(xh | p);
      const mh = p & xh;
      const php = (ph << 1) | ((hin + 1) >>> 1); // shifted in: 1 when hin = +1
      const mhp = (mh << 1) | hneg;
      pv[q] = mhp | ~(xv | php);
      mv[q] = php & xv;
      hin = (ph >>> 31) - (mh >>> 31);
    }
    if (lb === last) {
      const p = pv[last]!;
      const mm = mv[last]!;
      const hneg = hin >>> 31;
      let eq = peq[base + last]!;
      const xv = eq | mm;
      eq |= hneg;
      const xh = ((((eq & p) + p) | 0) ^ p) | eq;
      const ph = mm | ~(xh | p);
      const mh = p & xh;
      const php = (ph << 1) | ((hin + 1) >>> 1);
      const mhp = (mh << 1) | hneg;
      pv[last] = mhp | ~(xv | php);
      mv[last] = php & xv;
      hin = ((ph >>> lastShift) & 1) - ((mh >>> lastShift) & 1);
    }
    bottom += hin; // the horizontal step out of the bottom row of block lb
  }
  return lb === last ? bottom : Infinity;
}

