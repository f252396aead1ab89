import type { Db } from '../../storage/db.js';
import type { EvaluationUtteranceQuery } from '../../../shared/schemas/evaluations.js';
import { ALL_PROVIDERS } from '../../../shared/schemas/stt.js';
import { formatCondition, parseCondition } from '../../../shared/conditions.js';
import {
  allUtterances,
  cancelEvaluation,
  getEvaluation,
  listEvaluations,
  listUtterances,
  type EvaluationRow,
  type UtteranceFilter,
  type UtteranceView,
} from './repository.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import type { RefundFn } from '../limits/index.js';
import { evaluationLists } from './views.js';

/** The 404 of an unknown evaluation — also another user's (DESIGN §4.2 style). */
export const EVALUATION_NOT_FOUND = 'Evaluation not found';

/** The caller's evaluation `id`, or 404. */
export async function evaluationOf(db: Db, id: string, userId: string): Promise<EvaluationRow> {
  const row = await getEvaluation(db, id, userId);
  if (!row) throw new DomainError('evaluation_not_found', EVALUATION_NOT_FOUND);
  return row;
}

/**
 * POST /v1/evaluations/{id}/cancel (DESIGN §8.2): a pending or processing evaluation becomes `cancelled`
 * and the characters of syntheses never made are refunded in the same transaction; cancelling a
 * cancelled one again changes nothing; a finished one answers 409.
 */
export async function cancelEvaluationFor(
  deps: { db: Db; now: Date; refund: RefundFn },
  input: { id: string; userId: string },
): Promise<EvaluationRow> {
  const { db } = deps;
  return db.transaction(async () => {
    const row = await evaluationOf(db, input.id, input.userId);
    if (row.status === 'cancelled') return row;
    const cancelled = await cancelEvaluation(db, row.id, deps.now.toISOString());
    if (!cancelled) throw new DomainError('conflict', `Evaluation is already ${row.status}`);
    await deps.refund(db, { userId: row.user_id, period: row.period, characters: cancelled.unusedCharacters });
    return evaluationOf(db, input.id, input.userId);
  });
}

/** Maps the API filters to stored indexes; undefined when they cannot match anything in this evaluation. */
export function utteranceFilter(row: EvaluationRow, q: EvaluationUtteranceQuery): UtteranceFilter | undefined {
  const { providers, conditions } = evaluationLists(row);
  const filter: UtteranceFilter = { group: q.group, errorsOnly: q.errors_only, determinableOnly: q.determinable_only };
  if (q.provider !== undefined) {
    if (!ALL_PROVIDERS.includes(q.provider)) throw validationFailed(`Unknown provider: ${q.provider}`);
    filter.providerIndex = providers.indexOf(q.provider);
    if (filter.providerIndex < 0) return undefined;
  }
  if (q.condition !== undefined) {
    const canonical = formatCondition(parseCondition(q.condition));
    filter.conditionIndex = conditions.indexOf(canonical);
    if (filter.conditionIndex < 0) return undefined;
  }
  return filter;
}

/** A page of the evaluation's utterances under the API's filters (an impossible filter: an empty page). */
export async function utterancePage(
  db: Db,
  row: EvaluationRow,
  q: EvaluationUtteranceQuery,
  page: { limit: number; offset: number },
): Promise<{ rows: UtteranceView[]; total: number }> {
  const filter = utteranceFilter(row, q);
  return filter ? listUtterances(db, row.id, filter, page) : { rows: [], total: 0 };
}

export { allUtterances, getEvaluation, listEvaluations };
