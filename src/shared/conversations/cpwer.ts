/**
 * Concatenated minimum-permutation WER (cpWER, CHiME-6; DESIGN §16.4): each reference speaker's words, in
 * order, against the words of the hypothesis speaker paired with them; an unpaired speaker's words are all
 * deleted (reference) or inserted (hypothesis); the pairing with the fewest errors counts. Pairing two
 * unpaired speakers never costs more than leaving them apart (edit distance ≤ |r| + |h|), so the best
 * pairing is a complete assignment of the square matrix padded with "nobody" — solved exactly by the
 * Hungarian method rather than by trying all max(R, H)! permutations.
 */
import { editDistanceIds } from '../accuracy/distance.js';
import { minCostAssignment } from './assignment.js';

/** cpWER of one call: its errors, reference words, the rate and the pairing chosen. */
export interface CpwerResult {
  errors: number;
  referenceWords: number;
  /** errors ÷ reference words; null for a call without reference words. */
  cpwer: number | null;
  /** Reference speaker → hypothesis speaker, for the pairs the best pairing makes. */
  pairing: Map<string, string>;
}

/** Words per speaker as integer ids over one shared alphabet. */
function intern(groups: readonly (readonly string[])[]): { ids: Int32Array[]; alphabet: number } {
  const table = new Map<string, number>();
  const ids = groups.map((words) => {
    const out = new Int32Array(words.length);
    words.forEach((w, i) => {
      let id = table.get(w);
      if (id === undefined) table.set(w, (id = table.size));
      out[i] = id;
    });
    return out;
  });
  return { ids, alphabet: table.size };
}

/** cpWER of one call from each speaker's words in order (reference and hypothesis, keyed by speaker). */
export function cpWer(reference: ReadonlyMap<string, readonly string[]>, hypothesis: ReadonlyMap<string, readonly string[]>): CpwerResult {
  const refs = [...reference.keys()];
  const hyps = [...hypothesis.keys()];
  const { ids, alphabet } = intern([...refs.map((r) => reference.get(r)!), ...hyps.map((h) => hypothesis.get(h)!)]);
  const refIds = ids.slice(0, refs.length);
  const hypIds = ids.slice(refs.length);
  const n = Math.max(refs.length, hyps.length);
  const cost: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row: number[] = [];
    for (let j = 0; j < n; j++) {
      if (i < refs.length && j < hyps.length) row.push(editDistanceIds(refIds[i]!, hypIds[j]!, alphabet));
      else row.push(i < refs.length ? refIds[i]!.length : j < hyps.length ? hypIds[j]!.length : 0);
    }
    cost.push(row);
  }
  const chosen = minCostAssignment(cost);
  let errors = 0;
  const pairing = new Map<string, string>();
  chosen.forEach((j, i) => {
    errors += cost[i]![j]!;
    if (i < refs.length && j < hyps.length) pairing.set(refs[i]!, hyps[j]!);
  });
  const referenceWords = refIds.reduce((s, r) => s + r.length, 0);
  return { errors, referenceWords, cpwer: referenceWords > 0 ? errors / referenceWords : null, pairing };
}
