/**
 * POST /v1/evaluations/{id}/rerun (DESIGN §11.2): the same evaluation again — the same texts, the same
 * speaker ids with their groups (not a new draw from the filter), conditions, providers, normaliser and
 * seed — with the setup recorded afresh, so a comparison shows what changed since. Characters are
 * reserved as at creation.
 */
import type { Db } from '../storage/db.js';
import type { EvaluationCreated } from '../../shared/schemas/evaluations.js';
import { listEvaluationSpeakers, listEvaluationTexts } from '../storage/repositories/evaluations.js';
import { assertActiveSubscription } from '../services/users.js';
import { getNormalizer } from '../../shared/normalizers/index.js';
import { storeEvaluation } from './create.js';
import { evaluationOf } from './service.js';
import type { DescribeProvider } from './setup.js';
import { evaluationLists } from './views.js';

/** Stores the rerun of the caller's evaluation `id` (404 for another user's) with `baseline_id` = `id`. */
export async function rerunEvaluation(
  deps: { db: Db; now: Date; describe?: DescribeProvider },
  input: { id: string; userId: string },
): Promise<EvaluationCreated> {
  const { db } = deps;
  const base = await evaluationOf(db, input.id, input.userId);
  const { providers, conditions } = evaluationLists(base);
  const texts = await listEvaluationTexts(db, base.id);
  const speakers = (await listEvaluationSpeakers(db, base.id)).map((s) => ({ speakerId: s.speaker_id, group: s.grp }));
  await assertActiveSubscription(db, input.userId);
  return storeEvaluation(deps, {
    userId: input.userId,
    name: base.name,
    texts,
    speakers,
    groupBy: base.group_by,
    providers,
    conditions,
    // Today's version of the same normaliser: a changed version makes a comparison refuse, as it must.
    normalizer: getNormalizer(base.normalizer),
    seed: Number(base.seed),
    baselineId: base.id,
    streaming: { mode: base.mode ?? 'batch', pace: base.pace === null ? null : Number(base.pace) },
  });
}
