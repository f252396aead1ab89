/**
 * Text normalisation of the accuracy metrics (DESIGN §4.12), shared by the server and the offline CLI.
 * Pure functions: no I/O, no server imports.
 */

/** Any Unicode White_Space run (wider than JS `\s`, which misses U+0085 and counts U+FEFF). */
const WHITESPACE = /\p{White_Space}+/gu;
/**
 * Punctuation to drop, except an apostrophe (ASCII or typographic) between two word characters, which is
 * kept as `'`. Lookarounds see the original neighbours, so `'quoted'` loses both quotes and `don't` keeps one.
 */
const PUNCTUATION = /(?<=[\p{L}\p{M}\p{N}])(['\u2019])(?=[\p{L}\p{M}\p{N}])|\p{P}/gu;

/** Splits on any Unicode white space, dropping empty tokens. */
export function whitespaceTokens(text: string): string[] {
  return text.split(WHITESPACE).filter((t) => t.length > 0);
}

/**
 * NFKC, lower case, punctuation removed except apostrophes between two word characters (`don't` stays,
 * `'quoted'` loses its quotes), white space collapsed to single spaces and trimmed.
 */
export function normalizeText(text: string): string {
  const stripped = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(PUNCTUATION, (_match, inner: string | undefined) => (inner ? "'" : ''));
  return whitespaceTokens(stripped).join(' ');
}

/** The words compared by WER: normalised tokens, or raw whitespace tokens when `normalize` is false. */
export function wordsOf(text: string, normalize: boolean): string[] {
  return normalize ? whitespaceTokens(normalizeText(text)) : whitespaceTokens(text);
}
