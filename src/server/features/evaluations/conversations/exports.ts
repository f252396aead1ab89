/**
 * A call's truth and a provider's hypothesis in the NIST formats every diarization tool reads (DESIGN
 * §16.2, §16.4): `reference.rttm`, `reference.stm` and `hypothesis.rttm?provider=P&condition=C`. The
 * RTTM of the reference is what voxctl's DER was computed from, so md-eval run on these files gives the
 * same number.
 */
import type { Db } from '../../../storage/db.js';
import { DomainError, validationFailed } from '../../../../shared/errors.js';
import { writeRttm, writeStm } from '../../../../shared/conversations/index.js';
import { getCall, getCallScores, type EvaluationRow } from '../repository.js';
import { evaluationLists } from '../views.js';
import { callScoreOf, parseTruth } from './score-call.js';

/** The files of a call. */
export const CALL_FILES = ['reference.rttm', 'reference.stm', 'hypothesis.rttm'] as const;
export type CallFile = (typeof CALL_FILES)[number];

/** The message of a call number the evaluation does not have. */
export const CALL_NOT_FOUND = 'Call not found';

/** The text of file `file` of call `n` (from 1) of the evaluation `row`; 404 for a call it does not have. */
export async function callFile(db: Db, row: EvaluationRow, n: number, file: CallFile, query: { provider?: string; condition?: string }): Promise<string> {
  const call = Number.isInteger(n) && n >= 1 ? await getCall(db, row.id, n - 1) : undefined;
  if (!call) throw new DomainError('not_found', CALL_NOT_FOUND);
  // Built with its audio: before that the truth is not known to the millisecond, so nothing is exported.
  if (call.truth === null) throw new DomainError('conflict', `Call ${n} is not built yet`);
  const truth = parseTruth(call.truth);
  if (file === 'reference.rttm') return writeRttm(call.utterance_id, truth);
  if (file === 'reference.stm') return writeStm(call.utterance_id, truth.map((t) => ({ ...t, words: t.text })));
  const { providers, conditions } = evaluationLists(row);
  if (query.provider === undefined) throw validationFailed('provider is required');
  const providerIndex = providers.indexOf(query.provider);
  if (providerIndex < 0) throw validationFailed(`Unknown provider for this evaluation: ${query.provider}`);
  const condition = query.condition ?? conditions[0]!;
  const conditionIndex = conditions.indexOf(condition);
  if (conditionIndex < 0) throw validationFailed(`Unknown condition for this evaluation: ${condition}`);
  const stored = await getCallScores(db, { evaluationId: row.id, idx: call.idx, providerIndex, conditionIndex });
  if (stored === undefined) throw new DomainError('conflict', `Call ${n} has not been heard by ${query.provider} under ${condition} yet`);
  const score = callScoreOf({ call_scores: stored });
  // A failed hearing or a provider without diarization has no speaker segments: an empty RTTM says so.
  return writeRttm(call.utterance_id, score?.segments ?? []);
}
