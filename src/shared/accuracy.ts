/**
 * Word and character error rates (DESIGN §4.12), shared by the server route and the offline CLI.
 * Pure functions over strings; a banded typed-array DP for the word alignment, banded bit-parallel edit
 * distance (Myers/Ukkonen) for the word and character distances. All results are exact (no heuristics):
 * bands are derived from proven upper bounds and a wrong bound falls back to a wider computation.
 */
import { whitespaceTokens, wordsOf } from './normalize.js';
import { getNormalizer, type Normalizer, type NormalizerName } from './normalizers/index.js';
import { alignIds, DELETE, INSERT, SUBSTITUTE, toSteps, type AlignmentStep } from './accuracy/align.js';
import { charBound, CodePointIds } from './accuracy/chars.js';
import { editDistanceIds } from './accuracy/distance.js';
import { internTokens } from './accuracy/tokens.js';
import { DomainError } from './errors.js';
import { entityProblem, matchEntities, type Entity, type EntityResult } from './entities/index.js';

export { alignWords, type AlignmentStep } from './accuracy/align.js';
export { editDistance } from './accuracy/distance.js';

/** What `/v1/stt/calculate-accuracy` answers (field names of the API). */
export interface AccuracyReport {
  wer: number;
  cer: number;
  substitutions: number;
  insertions: number;
  deletions: number;
  reference_words: number;
  hypothesis_words: number;
  /** The normaliser applied to both texts; absent when raw tokens were compared (`normalize: false`). */
  normalizer?: { name: NormalizerName; version: number };
  alignment?: AlignmentStep[];
  /** Each requested entity and whether the hypothesis recovers it (DESIGN §12.3). */
  entities?: EntityResult[];
}

export interface AccuracyOptions {
  /** Apply NFKC / lower case / punctuation normalisation (default true); false compares raw tokens. */
  normalize?: boolean;
  /**
   * Which normaliser (default `basic`, rule 12); an unknown name throws `UnknownNormalizerError`. A
   * `Normalizer` (an evaluation's recorded version, `normalizerAt`) is used as given.
   */
  normalizer?: NormalizerName | Normalizer;
  /** Include the word alignment (default false). */
  alignment?: boolean;
  /** Entities to look for in the hypothesis with the entity-aware matcher (at most 100). */
  entities?: readonly { type: string; value: unknown }[];
}

/** How many entities one accuracy request may check. */
export const MAX_ACCURACY_ENTITIES = 100;

/** The entities checked valid (`Invalid entity {i}: {reason}` for the first that is not; `i` 0-based). */
export function validEntities(entities: readonly { type: string; value: unknown }[]): Entity[] {
  if (entities.length > MAX_ACCURACY_ENTITIES) throw new AccuracyInputError(`At most ${MAX_ACCURACY_ENTITIES} entities per request`);
  return entities.map((e, i) => {
    const problem = entityProblem(e.type, e.value);
    if (problem) throw new AccuracyInputError(`Invalid entity ${i}: ${problem}`);
    return e as Entity;
  });
}

/** Thrown for inputs the metric is undefined on: a `validation_failed` domain error (400 over HTTP). */
export class AccuracyInputError extends DomainError {
  constructor(message: string) {
    super('validation_failed', message);
    this.name = 'AccuracyInputError';
  }
}

export const EMPTY_REFERENCE_MESSAGE = 'Reference must contain at least one word';
/** Bounds that keep one request of this public endpoint within tens of milliseconds and megabytes. */
export const MAX_ACCURACY_WORDS = 5_000;
export const MAX_ACCURACY_CHARS = 50_000;

/** Rounds to 4 decimals (the API's precision for wer/cer). */
export const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** Computes WER, CER and the edit counts of `hypothesis` against `reference`. */
export function calculateAccuracy(reference: string, hypothesis: string, options: AccuracyOptions = {}): AccuracyReport {
  // validated even when unused, as the API does
  const chosen = typeof options.normalizer === 'object' ? options.normalizer : getNormalizer(options.normalizer ?? 'basic');
  const entities = options.entities ? validEntities(options.entities) : undefined;
  const normalizer = options.normalize === false ? null : chosen;
  const ref = wordsWith(reference, normalizer);
  const hyp = wordsWith(hypothesis, normalizer);
  if (ref.length === 0) throw new AccuracyInputError(EMPTY_REFERENCE_MESSAGE);
  checkSize('Reference', ref);
  checkSize('Hypothesis', hyp);
  const [r, h, alphabet] = internTokens(ref, hyp);
  const ops = alignIds(r, h, alphabet);
  let substitutions = 0;
  let insertions = 0;
  let deletions = 0;
  for (let s = 0; s < ops.length; s++) {
    const op = ops[s]!;
    if (op === SUBSTITUTE) substitutions++;
    else if (op === INSERT) insertions++;
    else if (op === DELETE) deletions++;
  }
  const ids = new CodePointIds();
  const refText = ids.encode(ref);
  const hypText = ids.encode(hyp);
  const bound = charBound(ops, refText, hypText);
  const report: AccuracyReport = {
    wer: round4((substitutions + deletions + insertions) / ref.length),
    cer: round4(editDistanceIds(refText.chars, hypText.chars, ids.size, bound) / refText.chars.length),
    substitutions,
    insertions,
    deletions,
    reference_words: ref.length,
    hypothesis_words: hyp.length,
  };
  if (normalizer) report.normalizer = { name: normalizer.name, version: normalizer.version };
  if (options.alignment) report.alignment = toSteps(ops, ref, hyp, r, h);
  // Entities are read from the hypothesis as written: the normaliser would break them (`10:00 am` → `1000 am`).
  if (entities) report.entities = matchEntities(entities, hypothesis);
  return report;
}

/** The words compared: raw whitespace tokens without a normaliser, else the normalised text's tokens. */
function wordsWith(text: string, normalizer: Normalizer | null): string[] {
  // today's rule 12 has a fast path that splits without joining first
  if (normalizer === null || normalizer === getNormalizer('basic')) return wordsOf(text, normalizer !== null);
  return whitespaceTokens(normalizer.normalize(text));
}

function checkSize(label: string, words: readonly string[]): void {
  if (words.length > MAX_ACCURACY_WORDS) throw new AccuracyInputError(`${label} exceeds maximum of ${MAX_ACCURACY_WORDS} words`);
  let chars = words.length - 1;
  for (const w of words) chars += w.length; // UTF-16 units >= code points: a cheap upper bound first
  if (chars > MAX_ACCURACY_CHARS && Array.from(words.join(' ')).length > MAX_ACCURACY_CHARS) {
    throw new AccuracyInputError(`${label} exceeds maximum of ${MAX_ACCURACY_CHARS} characters`);
  }
}
