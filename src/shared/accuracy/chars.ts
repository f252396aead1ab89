/** Code point encoding of normalised words for the CER, and the bound that narrows its band. */
import { DELETE, INSERT, SUBSTITUTE } from './align.js';

/** Words joined by single spaces as code point ids; word w is `chars[starts[w] .. starts[w + 1] - 1)`. */
export interface EncodedText {
  chars: Int32Array;
  starts: Int32Array;
}

/** Numbers code points 0, 1, 2, … in order of first sight (shared by both texts), without one string per character. */
export class CodePointIds {
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

/**
 * The cost of the character alignment that follows the word alignment (each substituted word's own
 * Levenshtein distance, each deleted or inserted word with one adjacent space): an upper bound of the CER
 * distance, used only to narrow its band.
 */
export function charBound(ops: Uint8Array, ref: EncodedText, hyp: EncodedText): number {
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
