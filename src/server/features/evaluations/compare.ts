/**
 * GET /v1/evaluations/{id}/compare?baseline={other} (DESIGN §11.3): both the caller's (404), both
 * finished (409), the same normaliser (409), something in common (409); then the rows of
 * `compareRuns` and the differences of the recorded setups.
 */
import type { Db } from '../../storage/db.js';
import type { EvaluationCompare } from '../../../shared/schemas/evaluations.js';
import { DomainError } from '../../../shared/errors.js';
import { scoredUtterancesForCompare } from './compare-repository.js';
import type { EvaluationRow } from './repository.js';
import { changedSetup, compareRuns, normalizerMismatch, type CompareRun, type RequestsOf } from './compare-runs.js';
import { evaluationOf } from './service.js';
import { evaluationLists, evaluationSetup, toEvaluationSummary } from './views.js';

const finished = (row: EvaluationRow) => row.status === 'completed' || row.status === 'partial';

async function runOf(db: Db, row: EvaluationRow): Promise<CompareRun> {
  return { rows: await scoredUtterancesForCompare(db, row.id), ...evaluationLists(row) };
}

/**
 * A compare row's requests are the new run's (DESIGN §15.2): read from its summary row of the same
 * provider × condition × group, which counts every utterance sent, matched or not.
 */
function requestsOf(row: EvaluationRow): RequestsOf {
  const summary = toEvaluationSummary(row);
  const byKey = new Map(summary.map((r) => [JSON.stringify([r.provider, r.condition, r.group]), r]));
  return (key) => {
    const r = byKey.get(JSON.stringify([key.provider, key.condition, key.group]));
    return { attempted: r?.attempted ?? 0, failed_requests: r?.failed_requests ?? 0 };
  };
}

/** Compares the caller's evaluation `id` with its `baselineId`. */
export async function compareEvaluations(db: Db, input: { id: string; baselineId: string; userId: string }): Promise<EvaluationCompare> {
  const current = await evaluationOf(db, input.id, input.userId);
  const baseline = await evaluationOf(db, input.baselineId, input.userId);
  for (const row of [current, baseline]) {
    if (!finished(row)) throw new DomainError('conflict', `Evaluation ${row.id} is not finished`);
  }
  const currentSetup = evaluationSetup(current);
  const baselineSetup = evaluationSetup(baseline);
  const mismatch = normalizerMismatch(baselineSetup.normalizer, currentSetup.normalizer);
  if (mismatch) throw new DomainError('conflict', `Evaluations use different normalizers: ${mismatch}`);
  const [currentRun, baselineRun] = await Promise.all([runOf(db, current), runOf(db, baseline)]);
  const { matched, rows } = compareRuns({ current: currentRun, baseline: baselineRun, seed: Number(current.seed), requests: requestsOf(current) });
  if (matched === 0) throw new DomainError('conflict', 'No utterances in common');
  return {
    evaluation_id: current.id,
    baseline_id: baseline.id,
    matched_utterances: matched,
    changed_setup: changedSetup(baselineSetup, currentSetup),
    rows,
  };
}
