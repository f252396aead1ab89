import { calculateAccuracy } from '../../../shared/accuracy.js';
import { getNormalizer, type Normalizer, type NormalizerName } from '../../../shared/normalizers/index.js';
import { whitespaceTokens } from '../../../shared/normalize.js';
import type { SttResult } from '../../../shared/schemas/stt.js';
import type { UtteranceRecord } from './repository.js';
import { codePoints } from '../../../shared/text-rules.js';

/** The result columns of an utterance row (everything but its key and audio). */
export type UtteranceResult = Omit<
  UtteranceRecord,
  'evaluation_id' | 'text_index' | 'speaker_index' | 'condition_index' | 'provider_index' | 'audio_id'
>;

/** The result columns of an utterance that has no transcript (a provider or synthesis failure). */
export function failedResult(error: { code: string; message: string }, latencyMs: number | null): UtteranceResult {
  return {
    transcript: null,
    error_code: error.code,
    error_message: error.message,
    wer: null,
    substitutions: null,
    deletions: null,
    insertions: null,
    reference_words: null,
    reference_chars: null,
    char_errors: null,
    latency_ms: latencyMs,
    confidence: null,
  };
}

/**
 * Scores a provider's answer against the reference with the evaluation's normaliser (at its recorded version). The character edit
 * count is kept (CER × reference code points, exact: CER has 4 decimals and a reference at most 2,000
 * code points) so the summary can give a corpus CER rather than a mean of rates.
 */
export function scoreResult(reference: string, result: SttResult, normalizer: NormalizerName | Normalizer): UtteranceResult {
  if (result.transcript === null) {
    return failedResult(result.error ?? { code: 'upstream_error', message: 'No transcript' }, result.latency_ms);
  }
  const chosen = typeof normalizer === 'string' ? getNormalizer(normalizer) : normalizer;
  const acc = calculateAccuracy(reference, result.transcript, { normalizer: chosen });
  const referenceChars = codePoints(whitespaceTokens(chosen.normalize(reference)).join(' '));
  return {
    transcript: result.transcript,
    error_code: null,
    error_message: null,
    wer: acc.wer,
    substitutions: acc.substitutions,
    deletions: acc.deletions,
    insertions: acc.insertions,
    reference_words: acc.reference_words,
    reference_chars: referenceChars,
    char_errors: Math.round(acc.cer * referenceChars),
    latency_ms: result.latency_ms,
    confidence: result.confidence,
  };
}
