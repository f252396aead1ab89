import type { Db } from '../../../storage/db.js';
import type { EvaluationCompare } from '../../../../shared/schemas/evaluations.js';
import { DomainError } from '../../../../shared/errors.js';
import type { EvaluationRow } from '../repository.js';
import { compareEvaluations } from '../compare.js';

/**
 * The comparison the report shows for an evaluation that has a baseline; undefined when it has none or
 * the comparison cannot be made yet (either run unfinished, another normaliser, nothing in common).
 */
export async function baselineComparison(db: Db, row: EvaluationRow): Promise<EvaluationCompare | undefined> {
  if (!row.baseline_id) return undefined;
  try {
    return await compareEvaluations(db, { id: row.id, baselineId: row.baseline_id, userId: row.user_id });
  } catch (err) {
    if (err instanceof DomainError) return undefined;
    throw err;
  }
}
