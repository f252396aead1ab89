/**
 * Repetition loops (DESIGN §12.2): a transcript that repeats an n-gram (1 ≤ n ≤ 4) at least four times in
 * a row, where the reference does not — the "thank you thank you thank you…" of Whisper-family models.
 * Pure, over the words the evaluation scored (after its normaliser).
 */

/** The fewest consecutive repeats that make a loop. */
export const LOOP_REPEATS = 4;
/** The longest repeated phrase looked for. */
export const LOOP_MAX_N = 4;

/** The longest run of back-to-back repeats of any n-gram (1..4 words) in `words`, as a count of copies. */
export function longestRepeat(words: readonly string[]): number {
  let best = words.length > 0 ? 1 : 0;
  for (let n = 1; n <= LOOP_MAX_N; n++) {
    for (let start = 0; start + 2 * n <= words.length; start++) {
      let copies = 1;
      while (start + (copies + 1) * n <= words.length && sameRun(words, start, start + copies * n, n)) copies++;
      if (copies > best) best = copies;
    }
  }
  return best;
}

function sameRun(words: readonly string[], a: number, b: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (words[a + k] !== words[b + k]) return false;
  return true;
}

/** True when the hypothesis loops (≥ 4 copies in a row) and the reference does not. */
export function isLoop(referenceWords: readonly string[], hypothesisWords: readonly string[]): boolean {
  return longestRepeat(hypothesisWords) >= LOOP_REPEATS && longestRepeat(referenceWords) < LOOP_REPEATS;
}

/** An utterance's errors for `wer_capped`: at most its reference length, so one loop cannot swamp a corpus. */
export const cappedErrors = (errors: number, referenceWords: number): number => Math.min(errors, referenceWords);
