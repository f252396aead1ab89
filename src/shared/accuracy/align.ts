/**
 * Word alignment of the accuracy metrics (DESIGN §4.12 rule 12): minimum edit distance with unit costs,
 * ties broken towards the most matches, over a banded DP.
 */
import { editDistanceIds } from './distance.js';
import { internTokens } from './tokens.js';

/** One step of the word alignment, reference to hypothesis. */
export interface AlignmentStep {
  op: 'equal' | 'substitute' | 'insert' | 'delete';
  ref: string | null;
  hyp: string | null;
}

// Alignment operations, one byte each.
export const EQUAL = 0;
export const SUBSTITUTE = 1;
export const DELETE = 2; // consumes a reference word
export const INSERT = 3; // consumes a hypothesis word
// Back-pointers of the DP.
const DIAG = 1;
const UP = 2; // consumes a reference word: deletion
const LEFT = 3; // consumes a hypothesis word: insertion
const INF = 0x3fffffff;

/**
 * Minimum-edit-distance alignment with unit costs; among equal-cost alignments the one with the most
 * matches, i.e. the fewest substitutions (`sat on the mat` / `sad on mat today` is S1 D1 I1, as NIST sclite
 * reports, not S3). Both goals fold into one integer per cell: cost·K + substitutions, K > any count of
 * substitutions, so the smallest score is the cheapest alignment and, among those, the least substituting
 * (for a fixed cost, matches = (n + m − cost − substitutions) / 2).
 */
export function alignWords(ref: readonly string[], hyp: readonly string[]): AlignmentStep[] {
  const [r, h, alphabet] = internTokens(ref, hyp);
  return toSteps(alignIds(r, h, alphabet), ref, hyp, r, h);
}

/** Operation codes to the API's steps, words read back from both sequences. */
export function toSteps(ops: Uint8Array, ref: readonly string[], hyp: readonly string[], r: Int32Array, h: Int32Array): AlignmentStep[] {
  const steps: AlignmentStep[] = new Array<AlignmentStep>(ops.length);
  let i = 0;
  let j = 0;
  for (let s = 0; s < ops.length; s++) {
    const op = ops[s]!;
    if (op === DELETE) steps[s] = { op: 'delete', ref: ref[i++]!, hyp: null };
    else if (op === INSERT) steps[s] = { op: 'insert', ref: null, hyp: hyp[j++]! };
    else {
      steps[s] = { op: r[i] === h[j] ? 'equal' : 'substitute', ref: ref[i]!, hyp: hyp[j]! };
      i++;
      j++;
    }
  }
  return steps;
}

/**
 * The alignment of `alignWords` as operation codes, in order. Only a diagonal band is filled: with the
 * exact distance k known (bit-parallel, cheap), no path of cost k leaves the diagonals d = i − j with
 * |d| + |(n − m) − d| <= k. The band is stored compactly (row i, offset o = j − i + dMax), so memory and
 * time are O(n·k), not O(n·m). A common suffix is matched without DP: a match is never worse than the
 * alternatives there (the score of (i − 1, j − 1) exceeds that of (i − 1, j) or (i, j − 1) by at most K: drop
 * the last word's column, or turn its pair into a deletion), and the traceback, which prefers the diagonal,
 * takes it anyway, so the result is the same alignment the full band would give.
 */
export function alignIds(r: Int32Array, h: Int32Array, alphabet: number): Uint8Array {
  const N = r.length;
  const M = h.length;
  let n = N;
  let m = M;
  while (n > 0 && m > 0 && r[n - 1] === h[m - 1]) {
    n--;
    m--;
  }
  const k = editDistanceIds(r, h, alphabet);
  const slack = Math.floor((k - Math.abs(n - m)) / 2);
  const dMin = Math.min(0, n - m) - slack;
  const dMax = Math.max(0, n - m) + slack;
  const K = n + m + 1;
  const bw = dMax - dMin + 1;
  const delta = n - m;
  // Scores of the previous and current row (full width, one spare cell for a sentinel).
  let prev = new Int32Array(m + 2).fill(INF);
  let row = new Int32Array(m + 2).fill(INF);
  const move = new Uint8Array((n + 1) * bw);
  // Row 0: insertions only.
  let hi = Math.min(m, -dMin);
  for (let j = 0; j <= hi; j++) {
    prev[j] = j * K;
    move[j + dMax] = LEFT;
  }
  // Ukkonen's cut-off: cell (i, j) of score s is "alive" when its cost plus the least cost to the end,
  // |(n − m) − (i − j)|, is at most k, i.e. s < (k + 1 − |n − m − i + j|)·K (cost = ⌊s / K⌋ as
  // substitutions < K). Every cell of a cost-k path is alive, and so is every predecessor the traceback
  // could pick (it ties, so it lies on such a path), so a row only needs the columns from its upper
  // neighbour's first alive cell to the last one plus one, then further right while insertions stay alive.
  let first = 0;
  while (first < hi && prev[first]! >= (k + 1 - Math.abs(delta + first)) * K) first++;
  let lastAlive = hi;
  while (lastAlive > first && prev[lastAlive]! >= (k + 1 - Math.abs(delta + lastAlive)) * K) lastAlive--;
  for (let i = 1; i <= n; i++) {
    const at = i * bw + dMax - i; // move index of (i, j) is at + j
    const lo = Math.max(first, i - dMax);
    const bandHi = Math.min(m, i - dMin);
    const hi1 = Math.min(bandHi, lastAlive + 1);
    let j = lo;
    if (lo > 0) row[lo - 1] = INF;
    else {
      row[0] = i * K;
      move[at] = UP;
      j = 1;
    }
    const ri = r[i - 1]!;
    const sub = K + 1;
    for (; j <= hi1; j++) {
      let best = prev[j - 1]! + (ri === h[j - 1] ? 0 : sub);
      let dir = DIAG;
      const up = prev[j]! + K;
      if (up < best) {
        best = up;
        dir = UP;
      }
      const left = row[j - 1]! + K;
      if (left < best) {
        best = left;
        dir = LEFT;
      }
      row[j] = best;
      move[at + j] = dir;
    }
    // Beyond the upper row's reach only insertions lead here; stop after the first dead cell.
    for (; j <= bandHi; j++) {
      const v = row[j - 1]! + K;
      row[j] = v;
      move[at + j] = LEFT;
      if (v >= (k + 1 - Math.abs(delta - i + j)) * K) {
        j++;
        break;
      }
    }
    hi = j - 1;
    row[hi + 1] = INF; // read as "up" by the next row
    const from = lo > 0 ? lo : 0;
    first = from;
    while (first < hi && row[first]! >= (k + 1 - Math.abs(delta - i + first)) * K) first++;
    lastAlive = hi;
    while (lastAlive > first && row[lastAlive]! >= (k + 1 - Math.abs(delta - i + lastAlive)) * K) lastAlive--;
    const t = prev;
    prev = row;
    row = t;
  }
  const ops = new Uint8Array(N + M);
  let s = ops.length;
  for (let t = N - n; t > 0; t--) ops[--s] = EQUAL;
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const dir = move[i * bw + j - i + dMax];
    if (dir === DIAG) {
      ops[--s] = r[i - 1] === h[j - 1] ? EQUAL : SUBSTITUTE;
      i--;
      j--;
    } else if (dir === UP) {
      ops[--s] = DELETE;
      i--;
    } else if (dir === LEFT) {
      ops[--s] = INSERT;
      j--;
    } else throw new Error('alignment traceback reached an uncomputed cell'); // an invariant, never user input
  }
  return ops.subarray(s);
}

