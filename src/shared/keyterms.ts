/**
 * Keyterms (DESIGN §12.4): words and phrases a caller asks the recognisers to favour ("boosting"). One
 * rule for `POST /v1/stt/transcribe`, the CLI's `--keyterm` and the evaluation body's `keyterms.terms`:
 * 1..100 terms, each 1..50 characters (Unicode code points) after trimming.
 */

/** Bounds of a keyterm list. */
export const KEYTERM_LIMITS = { maxTerms: 100, maxChars: 50 } as const;

import { DomainError } from './errors.js';

/**
 * A keyterm list that breaks the rule: a `validation_failed` whose message is the API's 400 text, so the
 * routes and the work kind let it through as it is (DESIGN §12.4) and nothing translates it by hand.
 */
export class KeytermsError extends DomainError {
  constructor(message: string) {
    super('validation_failed', message);
    this.name = 'KeytermsError';
  }
}

/**
 * The trimmed terms, duplicates (after trimming) dropped in order; throws `KeytermsError` with
 * `Keyterms must hold 1..100 terms` or `Keyterm {i} must be 1..50 characters` (`i` 0-based).
 */
export function normalizeKeyterms(terms: readonly unknown[]): string[] {
  if (terms.length < 1 || terms.length > KEYTERM_LIMITS.maxTerms) throw new KeytermsError(`Keyterms must hold 1..${KEYTERM_LIMITS.maxTerms} terms`);
  const out: string[] = [];
  terms.forEach((raw, i) => {
    const term = typeof raw === 'string' ? raw.trim() : '';
    const chars = [...term].length;
    if (chars < 1 || chars > KEYTERM_LIMITS.maxChars) throw new KeytermsError(`Keyterm ${i} must be 1..${KEYTERM_LIMITS.maxChars} characters`);
    if (!out.includes(term)) out.push(term);
  });
  return out;
}
