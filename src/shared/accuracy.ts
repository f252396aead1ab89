/**
 * Word and character error rates (DESIGN §4.12), shared by the server route and the offline CLI.
 * Pure functions over strings; O(N·H) typed-array DP for words, bit-parallel edit distance for characters.
 */
import { wordsOf } from './normalize.js';

/** One step of the word alignment, reference to hypothesis. */
export interface AlignmentStep {
  op: 'equal' | 'substitute' | 'insert' | 'delete';
  ref: string | null;
  hyp: string | null;
}

/** What `/v1/stt/calculate-accuracy` answers (field names of the API). */
export interface AccuracyReport {
  wer: number;
  cer: number;
  substitutions: number;
  insertions: number;
  deletions: number;
  reference_words: number;
  hypothesis_words: number;
  alignment?: AlignmentStep[];
}

export interface AccuracyOptions {
  /** Apply NFKC / lower case / punctuation normalisation (default true); false compares raw tokens. */
  normalize?: boolean;
  /** Include the word alignment (default false). */
  alignment?: boolean;
}

/** Thrown for inputs the metric is undefined on; the server maps it to a 400 with this message. */
export class AccuracyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccuracyInputError';
  }
}

export const EMPTY_REFERENCE_MESSAGE = 'Reference must contain at least one word';
/** Bounds that keep one request of this public endpoint within tens of milliseconds and megabytes. */
export const MAX_ACCURACY_WORDS = 5_000;
export const MAX_ACCURACY_CHARS = 50_000;

/** Rounds to 4 decimals (the API's precision for wer/cer). */
export const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** Computes WER, CER and the edit counts of `hypothesis` against `reference`. */
export function calculateAccuracy(reference: string, hypothesis: string, options: AccuracyOptions = {}): AccuracyReport {
  const normalize = options.normalize ?? true;
  const ref = wordsOf(reference, normalize);
  const hyp = wordsOf(hypothesis, normalize);
  if (ref.length === 0) throw new AccuracyInputError(EMPTY_REFERENCE_MESSAGE);
  checkSize('Reference', ref);
  checkSize('Hypothesis', hyp);
  const steps = alignWords(ref, hyp);
  let substitutions = 0;
  let insertions = 0;
  let deletions = 0;
  for (const s of steps) {
    if (s.op === 'substitute') substitutions++;
    else if (s.op === 'insert') insertions++;
    else if (s.op === 'delete') deletions++;
  }
  const ids = new Map<number, number>();
  const refChars = codePointIds(ref.join(' '), ids);
  const hypChars = codePointIds(hyp.join(' '), ids);
  const report: AccuracyReport = {
    wer: round4((substitutions + deletions + insertions) / ref.length),
    cer: round4(editDistanceIds(refChars, hypChars, ids.size, charBound(steps)) / refChars.length),
    substitutions,
    insertions,
    deletions,
    reference_words: ref.length,
    hypothesis_words: hyp.length,
  };
  if (options.alignment) report.alignment = steps;
  return report;
}

function checkSize(label: string, words: readonly string[]): void {
  if (words.length > MAX_ACCURACY_WORDS) throw new AccuracyInputError(`${label} exceeds maximum of ${MAX_ACCURACY_WORDS} words`);
  let chars = words.length - 1;
  for (const w of words) chars += w.length; // UTF-16 units >= code points: a cheap upper bound first
  if (chars > MAX_ACCURACY_CHARS && Array.from(words.join(' ')).length > MAX_ACCURACY_CHARS) {
    throw new AccuracyInputError(`${label} exceeds maximum of ${MAX_ACCURACY_CHARS} characters`);
  }
}

/** The code points of `text` as small integers (shared `ids`), without building one string per character. */
function codePointIds(text: string, ids: Map<number, number>): Int32Array {
  const out = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    let id = ids.get(cp);
    if (id === undefined) {
      id = ids.size;
      ids.set(cp, id);
    }
    out[n++] = id;
  }
  return out.subarray(0, n);
}

/** Maps tokens to small integers so the DP compares numbers, not strings. */
function internTokens(a: readonly string[], b: readonly string[]): [Int32Array, Int32Array, number] {
  const ids = new Map<string, number>();
  const intern = (xs: readonly string[]) => {
    const out = new Int32Array(xs.length);
    xs.forEach((x, i) => {
      let id = ids.get(x);
      if (id === undefined) {
        id = ids.size;
        ids.set(x, id);
      }
      out[i] = id;
    });
    return out;
  };
  const ia = intern(a);
  const ib = intern(b);
  return [ia, ib, ids.size];
}

const DIAG = 1;
const UP = 2; // consumes a reference word: deletion
const LEFT = 3; // consumes a hypothesis word: insertion
const INF = 0x3fffffff;

/**
 * Minimum-edit-distance alignment with unit costs; among equal-cost alignments the one with the most
 * substitutions. Both goals fold into one integer per cell: cost·K − substitutions, K > any count of
 * substitutions, so the smallest score is the cheapest alignment and, among those, the most substituting.
 * Only a diagonal band is filled: with the exact distance k known (bit-parallel, cheap), no path of cost k
 * leaves the diagonals d = i − j with |d| + |(n − m) − d| <= k.
 */
export function alignWords(ref: readonly string[], hyp: readonly string[]): AlignmentStep[] {
  const n = ref.length;
  const m = hyp.length;
  const [r, h, alphabet] = internTokens(ref, hyp);
  const k = editDistanceIds(r, h, alphabet);
  const slack = Math.floor((k - Math.abs(n - m)) / 2);
  const dMin = Math.min(0, n - m) - slack;
  const dMax = Math.max(0, n - m) + slack;
  const K = n + m + 1;
  const width = m + 1;
  let prevRow = new Int32Array(width).fill(INF);
  let row = new Int32Array(width).fill(INF);
  const move = new Uint8Array((n + 1) * width);
  for (let j = 0; j <= Math.min(m, -dMin); j++) {
    prevRow[j] = j * K;
    move[j] = LEFT;
  }
  for (let i = 1; i <= n; i++) {
    const at = i * width;
    const lo = Math.max(0, i - dMax);
    const hi = Math.min(m, i - dMin);
    if (lo > 0) row[lo - 1] = INF;
    if (hi < m) row[hi + 1] = INF;
    let j = lo;
    if (j === 0) {
      row[0] = i * K;
      move[at] = UP;
      j = 1;
    }
    const ri = r[i - 1];
    for (; j <= hi; j++) {
      let best = prevRow[j - 1]! + (ri === h[j - 1] ? 0 : K - 1);
      let dir = DIAG;
      const up = prevRow[j]! + K;
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
    [prevRow, row] = [row, prevRow];
  }
  const steps: AlignmentStep[] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const dir = move[i * width + j];
    if (dir === DIAG) {
      steps.push({ op: r[i - 1] === h[j - 1] ? 'equal' : 'substitute', ref: ref[i - 1]!, hyp: hyp[j - 1]! });
      i--;
      j--;
    } else if (dir === UP) {
      steps.push({ op: 'delete', ref: ref[i - 1]!, hyp: null });
      i--;
    } else {
      steps.push({ op: 'insert', ref: null, hyp: hyp[j - 1]! });
      j--;
    }
  }
  return steps.reverse();
}

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
 * alignment). With an upper bound k, column j only computes the blocks holding rows j−k..j+k (Ukkonen's
 * band): a path of cost <= k never leaves it, and cells outside are never underestimated (new blocks start
 * from a real path's cost, the band's top edge assumes the largest step, +1), so the result is exact.
 * Should the bound be wrong, the band result exceeds it and the full matrix is computed instead.
 */
function editDistanceIds(a: Int32Array, b: Int32Array, alphabet: number, bound = Infinity): number {
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
  const k = Math.max(bound, Math.abs(n - m));
  const banded = bandedDistance(a.subarray(start, endA), b.subarray(start, endB), alphabet, k);
  return banded <= k ? banded : bandedDistance(a.subarray(start, endA), b.subarray(start, endB), alphabet, Infinity);
}

function bandedDistance(a: Int32Array, b: Int32Array, alphabet: number, k: number): number {
  const n = a.length;
  const m = b.length;
  const blocks = (n + 31) >>> 5;
  const last = blocks - 1;
  const lastShift = (n - 1) & 31;
  // peq[c * blocks + q]: bit i set when a[32q + i] is symbol c.
  const peq = new Int32Array(alphabet * blocks);
  for (let i = 0; i < n; i++) peq[a[i]! * blocks + (i >>> 5)]! |= 1 << (i & 31);
  const pv = new Int32Array(blocks);
  const mv = new Int32Array(blocks);
  const score = new Float64Array(blocks); // D at each block's bottom row, current column
  const blockOfRow = (row: number) => (Math.min(n, Math.max(1, row)) - 1) >>> 5;
  const height = (q: number) => (q === last ? n - 32 * last : 32);
  // Column 0: D[i][0] = i, all vertical steps +1.
  let fb = 0;
  let lb = blockOfRow(k);
  for (let q = 0; q <= lb; q++) {
    pv[q] = -1;
    score[q] = Math.min(n, 32 * (q + 1));
  }
  for (let j = 1; j <= m; j++) {
    const newLast = blockOfRow(j + k);
    while (lb < newLast) {
      lb++;
      pv[lb] = -1;
      mv[lb] = 0;
      score[lb] = score[lb - 1]! + height(lb);
    }
    fb = Math.max(fb, blockOfRow(j - k));
    const base = b[j - 1]! * blocks;
    let hin = 1; // the top row D[0][j] grows by one per column; inside the matrix, the band's upper edge
    for (let q = fb; q <= lb; q++) {
      let eq = peq[base + q]!;
      const p = pv[q]!;
      const mm = mv[q]!;
      const xv = eq | mm;
      if (hin < 0) eq |= 1;
      const xh = ((((eq & p) + p) | 0) ^ p) | eq;
      let ph = mm | ~(xh | p);
      let mh = p & xh;
      const shift = q === last ? lastShift : 31;
      const hout = ((ph >>> shift) & 1) - ((mh >>> shift) & 1);
      ph <<= 1;
      mh <<= 1;
      if (hin < 0) mh |= 1;
      else if (hin > 0) ph |= 1;
      pv[q] = mh | ~(xv | ph);
      mv[q] = ph & xv;
      score[q]! += hout;
      hin = hout;
    }
  }
  return lb === last ? score[last]! : Infinity;
}

/** The cost of the character alignment that follows the word alignment: an upper bound of the CER distance. */
function charBound(steps: readonly AlignmentStep[]): number {
  let cost = 0;
  for (const s of steps) {
    if (s.op === 'substitute') cost += editDistance(Array.from(s.ref!), Array.from(s.hyp!));
    else if (s.op === 'delete') cost += Array.from(s.ref!).length + 1;
    else if (s.op === 'insert') cost += Array.from(s.hyp!).length + 1;
  }
  return cost;
}
