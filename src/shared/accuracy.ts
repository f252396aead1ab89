/**
 * Word and character error rates (DESIGN §4.12), shared by the server route and the offline CLI.
 * Pure functions over strings; a banded typed-array DP for the word alignment, banded bit-parallel edit
 * distance (Myers/Ukkonen) for the word and character distances. All results are exact (no heuristics):
 * bands are derived from proven upper bounds and a wrong bound falls back to a wider computation.
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
  const [r, h, alphabet] = internTokens(ref, hyp);
  const ops = alignIds(r, h, alphabet);
  let substitutions = 0;
  let insertions = 0;
  let deletions = 0;
  for (let s = 0; s < ops.length; s++) {
    const op = ops[s]!;
    if (op === SUBSTITUTE) substitutions++;
    else if (op === INSERT) insertions++;
    else if (op === DELETE) deletions++;
  }
  const ids = new CodePointIds();
  const refText = ids.encode(ref);
  const hypText = ids.encode(hyp);
  const bound = charBound(ops, refText, hypText);
  const report: AccuracyReport = {
    wer: round4((substitutions + deletions + insertions) / ref.length),
    cer: round4(editDistanceIds(refText.chars, hypText.chars, ids.size, bound) / refText.chars.length),
    substitutions,
    insertions,
    deletions,
    reference_words: ref.length,
    hypothesis_words: hyp.length,
  };
  if (options.alignment) report.alignment = toSteps(ops, ref, hyp, r, h);
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

/** Words joined by single spaces as code point ids; word w is `chars[starts[w] .. starts[w + 1] - 1)`. */
interface EncodedText {
  chars: Int32Array;
  starts: Int32Array;
}

/** Numbers code points 0, 1, 2, … in order of first sight (shared by both texts), without one string per character. */
class CodePointIds {
  private readonly ascii = new Int32Array(128).fill(-1);
  private readonly other = new Map<number, number>();
  size = 0;

  private id(cp: number): number {
    if (cp < 128) {
      let id = this.ascii[cp]!;
      if (id < 0) this.ascii[cp] = id = this.size++;
      return id;
    }
    let id = this.other.get(cp);
    if (id === undefined) {
      id = this.size++;
      this.other.set(cp, id);
    }
    return id;
  }

  /** `words.join(' ')` as code point ids (a lone surrogate is one code point), with each word's start. */
  encode(words: readonly string[]): EncodedText {
    let units = Math.max(0, words.length - 1);
    for (const w of words) units += w.length;
    const chars = new Int32Array(units);
    const starts = new Int32Array(words.length + 1);
    const space = words.length > 1 ? this.id(0x20) : -1;
    let n = 0;
    for (let w = 0; w < words.length; w++) {
      if (w > 0) chars[n++] = space;
      starts[w] = n;
      const text = words[w]!;
      for (let i = 0; i < text.length; i++) {
        let cp = text.charCodeAt(i);
        if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
          const lo = text.charCodeAt(i + 1);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            i++;
          }
        }
        chars[n++] = this.id(cp);
      }
    }
    starts[words.length] = n + 1; // as if a space followed the last word
    return { chars: chars.subarray(0, n), starts };
  }
}

/** Maps tokens to small integers so the DP compares numbers, not strings. */
function internTokens(a: readonly string[], b: readonly string[]): [Int32Array, Int32Array, number] {
  const ids = new Map<string, number>();
  const intern = (xs: readonly string[]): Int32Array => {
    const out = new Int32Array(xs.length);
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      let id = ids.get(x);
      if (id === undefined) {
        id = ids.size;
        ids.set(x, id);
      }
      out[i] = id;
    }
    return out;
  };
  const ia = intern(a);
  const ib = intern(b);
  return [ia, ib, ids.size];
}

// Alignment operations, one byte each.
const EQUAL = 0;
const SUBSTITUTE = 1;
const DELETE = 2; // consumes a reference word
const INSERT = 3; // consumes a hypothesis word
// Back-pointers of the DP.
const DIAG = 1;
const UP = 2; // consumes a reference word: deletion
const LEFT = 3; // consumes a hypothesis word: insertion
const INF = 0x3fffffff;

/**
 * Minimum-edit-distance alignment with unit costs; among equal-cost alignments the one with the most
 * substitutions. Both goals fold into one integer per cell: cost·K − substitutions, K > any count of
 * substitutions, so the smallest score is the cheapest alignment and, among those, the most substituting.
 */
export function alignWords(ref: readonly string[], hyp: readonly string[]): AlignmentStep[] {
  const [r, h, alphabet] = internTokens(ref, hyp);
  return toSteps(alignIds(r, h, alphabet), ref, hyp, r, h);
}

function toSteps(ops: Uint8Array, ref: readonly string[], hyp: readonly string[], r: Int32Array, h: Int32Array): AlignmentStep[] {
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
 * alternatives there (adjacent scores differ by at most K), and the traceback, which prefers the diagonal,
 * takes it anyway, so the result is the same alignment the full band would give.
 */
function alignIds(r: Int32Array, h: Int32Array, alphabet: number): Uint8Array {
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
  // |(n − m) − (i − j)|, is at most k, i.e. s <= (k − |n − m − i + j|)·K (s > (cost − 1)·K as
  // substitutions < K). Every cell of a cost-k path is alive, and so is every predecessor the traceback
  // could pick (it ties, so it lies on such a path), so a row only needs the columns from its upper
  // neighbour's first alive cell to the last one plus one, then further right while insertions stay alive.
  let first = 0;
  while (first < hi && prev[first]! > (k - Math.abs(delta + first)) * K) first++;
  let lastAlive = hi;
  while (lastAlive > first && prev[lastAlive]! > (k - Math.abs(delta + lastAlive)) * K) lastAlive--;
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
    const sub = K - 1;
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
      if (v > (k - Math.abs(delta - i + j)) * K) {
        j++;
        break;
      }
    }
    hi = j - 1;
    row[hi + 1] = INF; // read as "up" by the next row
    const from = lo > 0 ? lo : 0;
    first = from;
    while (first < hi && row[first]! > (k - Math.abs(delta - i + first)) * K) first++;
    lastAlive = hi;
    while (lastAlive > first && row[lastAlive]! > (k - Math.abs(delta - i + lastAlive)) * K) lastAlive--;
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

/**
 * The cost of the character alignment that follows the word alignment (each substituted word's own
 * Levenshtein distance, each deleted or inserted word with one adjacent space): an upper bound of the CER
 * distance, used only to narrow its band.
 */
function charBound(ops: Uint8Array, ref: EncodedText, hyp: EncodedText): number {
  let cost = 0;
  let i = 0;
  let j = 0;
  const rs = ref.starts;
  const hs = hyp.starts;
  for (let s = 0; s < ops.length; s++) {
    const op = ops[s]!;
    if (op === DELETE) {
      cost += rs[i + 1]! - rs[i]!;
      i++;
    } else if (op === INSERT) {
      cost += hs[j + 1]! - hs[j]!;
      j++;
    } else {
      if (op === SUBSTITUTE) cost += wordDistance(ref.chars, rs[i]!, rs[i + 1]! - 1, hyp.chars, hs[j]!, hs[j + 1]! - 1);
      i++;
      j++;
    }
  }
  return cost;
}

let wordRow = new Int32Array(64);

/** Textbook Levenshtein of `a[aFrom..aTo)` and `b[bFrom..bTo)` (two words: short), one reused row. */
function wordDistance(a: Int32Array, aFrom: number, aTo: number, b: Int32Array, bFrom: number, bTo: number): number {
  while (aFrom < aTo && bFrom < bTo && a[aFrom] === b[bFrom]) {
    aFrom++;
    bFrom++;
  }
  while (aTo > aFrom && bTo > bFrom && a[aTo - 1] === b[bTo - 1]) {
    aTo--;
    bTo--;
  }
  const n = aTo - aFrom;
  const m = bTo - bFrom;
  if (n === 0) return m;
  if (m === 0) return n;
  if (wordRow.length <= m) wordRow = new Int32Array(2 * m + 1);
  const row = wordRow;
  for (let j = 0; j <= m; j++) row[j] = j;
  for (let i = 1; i <= n; i++) {
    const ai = a[aFrom + i - 1];
    let diag = row[0]!;
    row[0] = i;
    for (let j = 1; j <= m; j++) {
      const up = row[j]!;
      const best = Math.min(diag + (ai === b[bFrom + j - 1] ? 0 : 1), up + 1, row[j - 1]! + 1);
      diag = up;
      row[j] = best;
    }
  }
  return row[m]!;
}
