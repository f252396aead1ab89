/**
 * The calls the report draws as timelines (DESIGN §16.6): the first calls of a conversation evaluation,
 * each with its reference turns (its stored truth) and the speaker segments every provider × condition
 * produced (kept with the call's scores), so the page is drawn from what was scored.
 */
import type { Db } from '../../../storage/db.js';
import type { ReportCall } from '../../../../shared/schemas/evaluations.js';
import { listCalls, type EvaluationRow, type UtteranceRecord } from '../repository.js';
import { evaluationLists } from '../views.js';
import { callScoreOf, parseTruth } from './score-call.js';

/** Calls drawn in the report, at most: the first open, the others folded. */
export const REPORT_CALLS = 20;

/** The first REPORT_CALLS calls of `row` with what was heard of them in `utterances` (its utterance rows). */
export async function reportCalls(db: Db, row: EvaluationRow, utterances: readonly UtteranceRecord[]): Promise<ReportCall[]> {
  const calls = await listCalls(db, row.id, REPORT_CALLS);
  if (calls.length === 0) return [];
  const { providers, conditions } = evaluationLists(row);
  return calls.map((call) => ({
    utterance_id: call.utterance_id,
    turns: call.truth === null ? null : parseTruth(call.truth).map((t) => ({ speaker: t.speaker, start: t.start, end: t.end, text: t.text })),
    hypotheses: utterances.flatMap((u) => {
      const score = u.text_index === call.idx ? callScoreOf(u) : undefined;
      if (!score) return [];
      const diarized = !('unsupported' in score.der);
      return [
        {
          provider: providers[u.provider_index]!,
          condition: conditions[u.condition_index]!,
          diarized,
          segments: diarized ? score.segments.map((s) => ({ speaker: s.speaker, start: s.start, end: s.end })) : [],
        },
      ];
    }),
  }));
}
