/**
 * The keyterm probe's figures for one utterance (DESIGN §12.4), pure: how many occurrences of the terms
 * the reference holds and how many of those the transcript got exactly (aligned word for word), how many
 * terms the transcript invents where its reference has none, and the word errors outside the terms. All
 * on words after the evaluation's normaliser, so case and punctuation do not count.
 */
import { alignWords } from './accuracy/align.js';

/** What one utterance contributes to a provider's keyterm row. */
export interface KeytermCounts {
  occurrences: number;
  recalled: number;
  falsePositives: number;
  /** Reference words that are not part of a term occurrence, and the errors on them. */
  otherWords: number;
  otherErrors: number;
}

/** Start indexes of every occurrence of `term` (a word sequence) in `words`, non-overlapping, left to right. */
function occurrences(words: readonly string[], term: readonly string[]): number[] {
  const at: number[] = [];
  for (let i = 0; term.length > 0 && i + term.length <= words.length; i++) {
    let same = true;
    for (let k = 0; k < term.length && same; k++) same = words[i + k] === term[k];
    if (same) {
      at.push(i);
      i += term.length - 1;
    }
  }
  return at;
}

/** Counts for one utterance; `terms` are word sequences already normalised like `ref` and `hyp`. */
export function keytermCounts(ref: readonly string[], hyp: readonly string[], terms: readonly (readonly string[])[]): KeytermCounts {
  const steps = alignWords(ref, hyp);
  // For each reference word: did it come back exactly (an `equal` step)?
  const exact: boolean[] = [];
  for (const s of steps) if (s.op !== 'insert') exact.push(s.op === 'equal');
  const inTerm = new Array<boolean>(ref.length).fill(false);
  let total = 0;
  let recalled = 0;
  let falsePositives = 0;
  for (const term of terms) {
    const inRef = occurrences(ref, term);
    for (const i of inRef) {
      total++;
      let ok = true;
      for (let k = 0; k < term.length; k++) {
        inTerm[i + k] = true;
        ok &&= exact[i + k] === true;
      }
      if (ok) recalled++;
    }
    if (inRef.length === 0) falsePositives += occurrences(hyp, term).length;
  }
  // Errors outside the terms: the alignment's steps on non-term reference words, and inserted words that
  // are no term's (an inserted term is a false positive, counted above).
  const termWords = new Set(terms.flat());
  let otherErrors = 0;
  let r = 0;
  for (const s of steps) {
    if (s.op === 'insert') {
      if (!termWords.has(s.hyp!)) otherErrors++;
      continue;
    }
    if (!inTerm[r] && s.op !== 'equal') otherErrors++;
    r++;
  }
  return { occurrences: total, recalled, falsePositives, otherWords: inTerm.filter((x) => !x).length, otherErrors };
}
