/**
 * The rules every text to be spoken follows (DESIGN §4.6), written once for the service (synthesize,
 * batch items, dataset rows, evaluation texts) and the CLI, which checks them before sending. Plain
 * TypeScript importing only the constants, so the CLI loads it cheaply.
 */

import { MAX_TEXT_CODE_POINTS } from './constants.js';
import { DomainError } from './errors.js';

export { MAX_TEXT_CODE_POINTS };

/** Characters as the API counts them: Unicode code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

// With the `u` flag a string is read as code points: a well-formed pair is one astral code point, so
// only a high or low surrogate standing alone is a `Cs` code point.
const LONE_SURROGATE = /\p{Cs}/u;
// Something a voice can say: a letter or a number of any script. NFKC first turns compatibility forms
// (circled Ⓐ, full-width Ａ, superscript ², ligature ﬁ) into the letters and digits they stand for.
const SPEAKABLE = /[\p{L}\p{N}]/u;

/** True when `text` holds a UTF-16 surrogate without its partner (`"\ud800"`): not Unicode text at all. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** True when `text` has a letter or digit of any script after NFKC; emoji- or punctuation-only text has none. */
export function isSpeakable(text: string): boolean {
  return SPEAKABLE.test(text.normalize('NFKC'));
}

/** What is wrong with a text, in the order a client fixes it: broken Unicode, nothing, too much, unsayable. */
export type TextProblem = 'lone_surrogate' | 'empty' | 'too_long' | 'nothing_to_speak';

/**
 * The spec's text rules, shared by synthesize, batch items (`Item {i}: `), dataset rows (`Line {n}: `,
 * whose empty message the design spells in lower case) and evaluation texts (`Text {i}: `).
 */
export function textProblem(text: string): TextProblem | undefined {
  if (hasLoneSurrogate(text)) return 'lone_surrogate';
  if (text.trim().length === 0) return 'empty';
  if (codePoints(text) > MAX_TEXT_CODE_POINTS) return 'too_long';
  if (!isSpeakable(text)) return 'nothing_to_speak';
  return undefined;
}

/** The exact messages of DESIGN §4.6 (and of the rules it implies) for each text problem. */
export const TEXT_MESSAGES: Record<TextProblem, string> = {
  lone_surrogate: 'Text contains a lone surrogate (not valid Unicode)',
  empty: 'Text must not be empty',
  too_long: `Text exceeds maximum length of ${MAX_TEXT_CODE_POINTS} characters`,
  nothing_to_speak: 'Text has nothing to speak',
};

/**
 * A text that breaks a rule: a domain error (`text_too_long`, or `validation_failed` for the others) the
 * service answers with 400 and the CLI with a usage error (exit 2).
 */
export class TextRuleError extends DomainError {
  readonly problem: TextProblem;

  constructor(problem: TextProblem, message: string) {
    super(problem === 'too_long' ? 'text_too_long' : 'validation_failed', message);
    this.name = 'TextRuleError';
    this.problem = problem;
  }
}

/** Throws a TextRuleError with the message of DESIGN §4.6 when `text` breaks a rule; `prefix` names the item. */
export function assertValidText(text: string, prefix = ''): void {
  const problem = textProblem(text);
  if (problem) throw new TextRuleError(problem, prefix + TEXT_MESSAGES[problem]);
}
