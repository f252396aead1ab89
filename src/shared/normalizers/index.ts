/**
 * The text normalisers of the accuracy metrics, by name and version (DESIGN §4.12 rule 12, §8.6). A
 * result that used one reports `{name, version}`: a changed normaliser moves scores, so it gets a new version.
 */
import { normalizeText, normalizeTextV1 } from '../normalize.js';
import { normalizeWhisperEn } from './whisper-en.js';
import { DomainError } from '../errors.js';

export type NormalizerName = 'basic' | 'whisper-en';

/** Every normaliser the API and CLI accept, the default first. */
export const NORMALIZER_NAMES: readonly NormalizerName[] = ['basic', 'whisper-en'];

/** A pure text → text function with the name and version reported beside results that used it. */
export interface Normalizer {
  name: NormalizerName;
  version: number;
  normalize(text: string): string;
}

const NORMALIZERS: Record<NormalizerName, Normalizer> = {
  // version 2 (DESIGN §15.6): a hyphen, dash or slash between two letters is a space. Evaluations stored
  // before keep their version 1 (a column of their row), so a comparison across the change refuses.
  basic: { name: 'basic', version: 2, normalize: normalizeText },
  // whisper-en already read every hyphen, dash and slash as a space: its output did not change.
  'whisper-en': { name: 'whisper-en', version: 1, normalize: normalizeWhisperEn },
};

/** Earlier versions still known: an evaluation recorded with one is scored with it to its end. */
const EARLIER: readonly Normalizer[] = [{ name: 'basic', version: 1, normalize: normalizeTextV1 }];

/**
 * The normaliser `name` at `version`, as an evaluation recorded it: today's when the versions agree, else
 * a kept earlier version — so an evaluation started before an upgrade is not scored half by each.
 * Throws for a version this build does not know (a row written by a newer one).
 */
export function normalizerAt(name: NormalizerName | (string & {}), version: number): Normalizer {
  const current = getNormalizer(name);
  if (current.version === version) return current;
  const earlier = EARLIER.find((n) => n.name === current.name && n.version === version);
  if (!earlier) throw new Error(`This build has no ${current.name} normaliser of version ${version}`);
  return earlier;
}

/** A normaliser name that is not one of `NORMALIZER_NAMES`; the message is the API's 400 detail. */
export class UnknownNormalizerError extends DomainError {
  constructor(readonly normalizer: string) {
    super('validation_failed', `Unknown normalizer: ${normalizer}`);
    this.name = 'UnknownNormalizerError';
  }
}

/** Whether `name` is one of `NORMALIZER_NAMES` (for validating user input before `getNormalizer`). */
export function isNormalizerName(name: string): name is NormalizerName {
  return Object.hasOwn(NORMALIZERS, name);
}

/** The normaliser called `name`; throws `UnknownNormalizerError` for any other string (user input). */
export function getNormalizer(name: NormalizerName | (string & {})): Normalizer {
  if (!isNormalizerName(name)) throw new UnknownNormalizerError(name);
  return NORMALIZERS[name];
}
