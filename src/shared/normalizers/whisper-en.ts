/**
 * The `whisper-en` normaliser (DESIGN §8.6): rule 12 plus the English rewrites that make a transcript and
 * its reference agree on form rather than content — bracketed text and fillers removed, contractions and
 * titles expanded, spelled numbers as digits, American spellings. Unlike rule 12 it keeps what numbers are
 * written with (`10:00`, `3.5`, `5%`, `$5`) and reads a hyphen, dash or slash as a space (`twenty-one`).
 * Punctuation is removed before any word is read, so `twelve!` is a number like `twelve`.
 */
import { isWhiteSpace, whitespaceTokens } from '../normalize.js';
import { spelledNumbersToDigits } from './english-numbers.js';
import { rewriteWord } from './english-words.js';

/**
 * Text in brackets, parentheses or angle brackets: annotations such as `[laughter]` or `(inaudible)`. The
 * innermost pair only: a class that excludes the opening bracket too keeps the scan linear on hostile
 * input (`[[[[…` without a closing one), which this public endpoint must survive.
 */
const BRACKETED = /\[[^[\]]*\]|\([^()]*\)|<[^<>]*>/g;

/**
 * One pass over punctuation (\p{P}), deciding per character (in `mark`): `.` and `:` between digits kept
 * (`3.5`, `10:00`), `%` after a number or a space kept (a lone `%` token is read like `percent` by the
 * number pass, or goes), an apostrophe inside a word kept as `'`, hyphens, dashes and slashes read as spaces, anything
 * else removed (`1,000` → `1000`). Removed, not a boundary: a boundary would be lost in the output, and
 * normalising that output again would join what the first pass kept apart. One character per match keeps
 * the scan linear on hostile input (a pattern like `\s*%` is quadratic on a long run of spaces).
 */
const MARKS = /\p{P}/gu;
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** Whether code point `cp` (NaN outside the text) is a letter, mark or number. */
const isWordChar = (cp: number | undefined) => cp !== undefined && !Number.isNaN(cp) && WORD_CHAR.test(String.fromCodePoint(cp));

/** The code point that ends just before `i` (a surrogate pair read whole). */
function codePointBefore(s: string, i: number): number {
  const lo = s.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = s.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return s.codePointAt(i - 2)!;
  }
  return lo;
}

function mark(m: string, offset: number, s: string): string {
  const before = s.charCodeAt(offset - 1);
  const c = m.charCodeAt(0);
  if (c === 0x25 /* % */) return isDigit(before) || isWhiteSpace(before) ? '%' : '';
  if ((c === 0x2e || c === 0x3a) /* . : */ && isDigit(before) && isDigit(s.charCodeAt(offset + 1))) return m;
  if (c === 0x27 || c === 0x2019) return isWordChar(codePointBefore(s, offset)) && isWordChar(s.codePointAt(offset + 1)) ? "'" : '';
  return c === 0x2d || c === 0x2f || (c >= 0x2010 && c <= 0x2015) ? ' ' : '';
}

const CURRENCY = new Set(['$', '€', '£', '¥']);

/** Normalises English text for WER as DESIGN §8.6 says; pure, never throws, lower-case, idempotent. */
export function normalizeWhisperEn(text: string): string {
  let s = text.normalize('NFKC').toLowerCase();
  if (s.includes('[') || s.includes('(') || s.includes('<')) s = s.replace(BRACKETED, ' ');
  s = s.replace(MARKS, mark);
  const words: string[] = [];
  for (const token of whitespaceTokens(s)) rewriteWord(token, words);
  const out: string[] = [];
  for (const word of spelledNumbersToDigits(words)) {
    const last = out.length - 1;
    // `5 %` and `five %` became `5%` with the numbers; a `%` after anything else goes
    if (word === '%') continue;
    // a currency sign apart from its amount joins it (`$ 5`, `$ five` → `$5`)
    if (last >= 0 && CURRENCY.has(out[last]!) && isDigit(word.charCodeAt(0))) out[last] += word;
    else out.push(word);
  }
  return out.join(' ');
}
