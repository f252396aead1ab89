/**
 * Text normalisation of the accuracy metrics (DESIGN §4.12; `basic` version 2, §15.6), shared by the server
 * and the offline CLI.
 * Pure functions: no I/O, no server imports.
 */

/**
 * Punctuation to drop, except an apostrophe (ASCII or typographic) between two word characters, which is
 * kept as `'`. Lookarounds see the original neighbours, so `'quoted'` loses both quotes and `don't` keeps one.
 */
const PUNCTUATION = /(?<=[\p{L}\p{M}\p{N}])(['\u2019])(?=[\p{L}\p{M}\p{N}])|\p{P}/gu;

/**
 * Whether UTF-16 unit `c` is Unicode White_Space (wider than JS `\s`, which misses U+0085 and counts
 * U+FEFF): U+0009–000D, U+0020, U+0085, U+00A0, U+1680, U+2000–200A, U+2028, U+2029, U+202F, U+205F, U+3000.
 * All are BMP code points, so testing code units is testing code points.
 */
export function isWhiteSpace(c: number): boolean {
  if (c < 0x85) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x1680) return c === 0x85 || c === 0xa0;
  return c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** Splits on any Unicode white space, dropping empty tokens (a scan: no regex, no empty strings). */
export function whitespaceTokens(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    // Printable ASCII other than the space is never white space: the common case, one comparison.
    const space = c > 0x20 && c < 0x7f ? false : isWhiteSpace(c);
    if (space) {
      if (start >= 0) {
        out.push(text.slice(start, i));
        start = -1;
      }
    } else if (start < 0) start = i;
  }
  if (start >= 0) out.push(text.slice(start));
  return out;
}

/**
 * A hyphen (U+002D, U+2010, U+2011), an en or em dash or a slash between two letters (a run of them, as
 * `--` for a dash), which rule 12 of `basic` version 2 reads as a space: `ill-disposed` is `ill disposed`,
 * `and/or` is `and or`. Only between letters: `10-20` and `covid-19` lose the hyphen as other punctuation.
 * A combining mark ends a letter (`क्या-क्या`). Lookarounds see the original neighbours and one character
 * class repeats, so the scan stays linear.
 */
const JOINER = /(?<=[\p{L}\p{M}])[-\u2010\u2011\u2013\u2014/]+(?=\p{L})/gu;

/**
 * NFKC, lower case, joiners between letters as spaces (unless `joiners` is false: `basic` version 1),
 * other punctuation removed (apostrophes between word characters kept as `'`).
 */
function stripText(text: string, joiners = true): string {
  const folded = text.normalize('NFKC').toLowerCase();
  return (joiners ? folded.replace(JOINER, ' ') : folded).replace(PUNCTUATION, (_match, inner: string | undefined) => (inner ? "'" : ''));
}

/**
 * `basic` version 1, before DESIGN §15.6: every punctuation mark removed, so `ill-disposed` is one word.
 * Kept only to finish scoring an evaluation recorded with it (its numbers must not mix two versions).
 */
export function normalizeTextV1(text: string): string {
  return whitespaceTokens(stripText(text, false)).join(' ');
}

/**
 * NFKC, lower case, a hyphen, dash or slash between two letters read as a space (`ill-disposed` →
 * `ill disposed`), other punctuation removed except apostrophes between two word characters (`don't`
 * stays, `'quoted'` loses its quotes), white space collapsed to single spaces and trimmed.
 */
export function normalizeText(text: string): string {
  return whitespaceTokens(stripText(text)).join(' ');
}

/** The words compared by WER: normalised tokens, or raw whitespace tokens when `normalize` is false. */
export function wordsOf(text: string, normalize: boolean): string[] {
  // Tokens never contain white space, so splitting the stripped text equals splitting normalizeText's join.
  return whitespaceTokens(normalize ? stripText(text) : text);
}
