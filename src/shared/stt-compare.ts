/**
 * Scores one reference text against every provider's transcript of a `/v1/stt/transcribe` answer with
 * the shared WER/CER code (DESIGN §4.12): what `voxctl stt compare` prints, usable offline as a library.
 */
import { calculateAccuracy, type AccuracyOptions, type AccuracyReport } from './accuracy.js';
import type { TranscribeResponse } from './schemas/stt.js';

/** One provider's row of a comparison: its result plus the accuracy of its transcript (null when it failed). */
export interface ComparisonRow {
  provider: string;
  transcript: string | null;
  latency_ms: number;
  confidence: number | null;
  accuracy: AccuracyReport | null;
  error?: { code: string; message: string };
}

/**
 * Rows in the order of `response.results` (the request's order). A failed provider keeps its error and
 * gets no accuracy; an empty transcript is scored (every reference word deleted). Throws
 * `AccuracyInputError` when the reference has no words.
 */
export function compareTranscripts(reference: string, response: TranscribeResponse, options: Omit<AccuracyOptions, 'alignment'> = {}): ComparisonRow[] {
  // Validate the reference once, even when every provider failed.
  calculateAccuracy(reference, '', options);
  return Object.entries(response.results).map(([provider, r]) => ({
    provider,
    transcript: r.transcript,
    latency_ms: r.latency_ms,
    confidence: r.confidence,
    accuracy: r.transcript === null ? null : calculateAccuracy(reference, r.transcript, options),
    ...(r.error ? { error: r.error } : {}),
  }));
}
