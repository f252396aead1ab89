/**
 * The `whisper-en` normaliser (DESIGN §8.6): rule 12 plus the English rewrites that make a transcript and
 * its reference agree on form rather than content — bracketed text and fillers removed, contractions and
 * titles expanded, spelled numbers as digits, American spellings. Unlike rule 12 it keeps what numbers are
 * written with (`10:00`, `3.5`, `5%`, `$5`) and reads a hyphen, dash or slash as a space (`twenty-one`).
 * Punctuation is removed before any word is read, so `twelve!` is a number like `twelve`.
 */
import { whitespaceTokens } from '../normalize.js';
import { spelledNumbersToDigits } from './english-numbers.js';
import { rewriteWord } from './english-words.js';

/** Text in brackets, parentheses or angle brackets: annotations such as `[laughter]` or `(inaudible)`. */
const BRACKETED = /\[[^\]]*\]|\([^)]*\)|<[^>]*>/g;

/**
 * One pass over punctuation (\p{P}), deciding per match: `.` and `:` between digits kept (`3.5`, `10:00`),
 * `%` after a number attached to it, an apostrophe inside a word kept as `'`, hyphens, dashes and slashes
 * read as spaces, anything else removed (`1,000` → `1000`). Removed, not a boundary: a boundary would be
 * lost in the output, and normalising that output again would join what the first pass kept apart.
 */
const MARKS = /(?<=\d)([.:])(?=\d)|(?<=\d)\s*(%)|(?<=[\p{L}\p{M}\p{N}])(['\u2019])(?=[\p{L}\p{M}\p{N}])|([-\u2010-\u2015/])|\p{P}/gu;

function mark(_m: string, keep?: string, percent?: string, apostrophe?: string, space?: string): string {
  if (keep) return keep;
  if (percent) return '%';
  if (apostrophe) return "'";
  return space ? ' ' : '';
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
    // A currency sign apart from its amount joins it (`$ 5`, `$ five` → `$5`).
    const last = out.length - 1;
    if (last >= 0 && CURRENCY.has(out[last]!) && word.charCodeAt(0) >= 0x30 && word.charCodeAt(0) <= 0x39) out[last] += word;
    else out.push(word);
  }
  return out.join(' ');
}
