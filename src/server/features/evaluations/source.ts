/**
 * The source of an evaluation's speech (DESIGN §8.1, §10.5): texts to synthesise, a dataset's rows, or a
 * recorded corpus. Which one is the first rule of the body, checked before any other — also before the
 * schema's, so a body naming two sources gets this message whatever else is wrong with it.
 */
import { validationFailed } from '../../../shared/errors.js';

/** The message of a body with no source or more than one. */
export const SOURCE_MESSAGE = 'Provide exactly one of texts, dataset_id or corpus_id';

const SOURCES = ['texts', 'dataset_id', 'corpus_id'] as const;

/** Which source a (not yet validated) body names; 400 unless exactly one of the three is present. */
export function evaluationSource(body: unknown): (typeof SOURCES)[number] {
  const record = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const present = SOURCES.filter((k) => record[k] !== undefined);
  if (present.length !== 1) throw validationFailed(SOURCE_MESSAGE);
  return present[0]!;
}
