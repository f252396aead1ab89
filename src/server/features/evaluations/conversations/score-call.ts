/**
 * A provider's hearing of one call scored (DESIGN §16.4): the utterance row's columns as any utterance's
 * (whole-call WER and CER against the call's reference, latency, confidence), with the call's own
 * metrics — cpWER, DER, speakers found, dropped turns and the hypothesis segments — kept as JSON beside
 * them, so the summary, `eval calls` and the `hypothesis.rttm` export read what was scored here.
 */
import { whitespaceTokens } from '../../../../shared/normalize.js';
import type { Normalizer } from '../../../../shared/normalizers/index.js';
import { scoreCall, type CallScore, type ReferenceTurn } from '../../../../shared/conversations/index.js';
import { scoreResult, type UtteranceResult } from '../scoring.js';
import type { DiarizedResult } from '../hearing.js';

/** Scores a call's hearing; a failed hearing is a failed utterance like any other. */
export function scoreCallResult(truth: readonly ReferenceTurn[], reference: string, result: DiarizedResult, normalizer: Normalizer): UtteranceResult {
  const row = scoreResult(reference, result, normalizer);
  if (result.transcript === null) return row;
  const words = (text: string) => whitespaceTokens(normalizer.normalize(text));
  const score = scoreCall(truth, { transcript: result.transcript, words: result.words ?? [], diarized: result.diarized === true }, words);
  // The whole-call alignment of §16.4 (turns in order of start) is the one the call's metrics use.
  return {
    ...row,
    wer: Math.round(score.wer * 10_000) / 10_000,
    substitutions: score.substitutions,
    deletions: score.deletions,
    insertions: score.insertions,
    reference_words: score.referenceWords,
    call_scores: JSON.stringify(score),
  };
}

/** The stored metrics of a call row, undefined for a row that is not a call or was not heard. */
export function callScoreOf(row: { call_scores?: string | null }): CallScore | undefined {
  return row.call_scores ? (JSON.parse(row.call_scores) as CallScore) : undefined;
}

/** The truth of a built call as stored (JSON `ReferenceTurn[]`). */
export function parseTruth(truth: string): ReferenceTurn[] {
  return JSON.parse(truth) as ReferenceTurn[];
}
