import { badRequest } from '../errors.js';

/** Longest text one synthesis accepts, in Unicode code points (DESIGN §4.6). */
export const MAX_TEXT_CODE_POINTS = 2000;

/** Characters as the API counts them: Unicode code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * The spec's text rules, shared by synthesize, batch items (`Item {i}: `) and dataset rows
 * (`Line {n}: `, whose empty message the design spells in lower case).
 */
export function textProblem(text: string): 'empty' | 'too_long' | undefined {
  if (text.trim().length === 0) return 'empty';
  if (codePoints(text) > MAX_TEXT_CODE_POINTS) return 'too_long';
  return undefined;
}

/** The exact messages of DESIGN §4.6 for a text problem. */
export const TEXT_MESSAGES = {
  empty: 'Text must not be empty',
  too_long: `Text exceeds maximum length of ${MAX_TEXT_CODE_POINTS} characters`,
} as const;

/** Throws the 400 of DESIGN §4.6 when `text` is empty or too long; `prefix` names the batch item. */
export function assertValidText(text: string, prefix = ''): void {
  const problem = textProblem(text);
  if (problem) throw badRequest(prefix + TEXT_MESSAGES[problem]);
}
