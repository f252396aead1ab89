/**
 * POST /v1/evaluations/{id}/rerun (DESIGN §11.2): the same evaluation again — the same texts, the same
 * speaker ids with their groups (not a new draw from the filter), conditions, providers, normaliser,
 * seed and mode — with the setup recorded afresh, so a comparison shows what changed since. Characters
 * are reserved as at creation. A corpus evaluation hears the same recordings again: the same corpus,
 * sample size and seed choose the same utterances (a corpus never changes once uploaded).
 */
import type { Db } from '../../storage/db.js';
import type { EvaluationCreated } from '../../../shared/schemas/evaluations.js';
import { listEvaluationSpeakers, listEvaluationTextRows } from './repository.js';
import type { CheckedProbes } from './probes.js';
import { assertActiveSubscription } from '../accounts/index.js';
import { getNormalizer } from '../../../shared/normalizers/index.js';
import { checkEvaluationName, newEvaluationId, storeEvaluation } from './create.js';
import { storeConversation, storedConversation } from './conversations/create.js';
import { ALL_GROUPS } from './summary.js';
import { createCorpusEvaluation, type CorpusReader } from './corpus-create.js';
import { recordSetup } from './setup.js';
import { evaluationOf } from './service.js';
import type { DescribeProvider } from './setup.js';
import { evaluationLists } from './views.js';

/**
 * Stores the rerun of the caller's evaluation `id` (404 for another user's) with `baseline_id` = `id`,
 * named `name` when given (a nightly run says which night it is), else as the baseline.
 */
export async function rerunEvaluation(
  deps: { db: Db; now: Date; describe?: DescribeProvider; corpora: CorpusReader },
  input: { id: string; userId: string; name?: string },
): Promise<EvaluationCreated> {
  const { db } = deps;
  checkEvaluationName(input.name);
  const base = await evaluationOf(db, input.id, input.userId);
  const name = input.name ?? base.name;
  const { providers, conditions } = evaluationLists(base);
  // The probes' sentences and clips are written again from the recorded probes and seed: the same ones.
  const rows = await listEvaluationTextRows(db, base.id);
  const texts = rows.filter((t) => t.kind === null && t.entity_type === null).map((t) => t.text);
  const probes = base.probes ? (JSON.parse(base.probes) as CheckedProbes) : undefined;
  const streaming = { mode: base.mode ?? 'batch', pace: base.pace === null || base.pace === undefined ? null : Number(base.pace) };
  if (base.corpus_id !== null) {
    const normalizer = getNormalizer(base.normalizer);
    const seed = Number(base.seed);
    const { setup, prices } = recordSetup({ providers, conditions, normalizer, seed, describe: deps.describe });
    return createCorpusEvaluation(
      { db, now: deps.now, corpora: deps.corpora },
      {
        id: newEvaluationId(),
        userId: input.userId,
        name,
        source: { kind: 'corpus', corpusId: base.corpus_id, groupBy: base.group_by, sample: { size: texts.length, seed } },
        common: { providers, conditions, normalizer },
        ...(probes ? { probes } : {}),
        recorded: { setup: JSON.stringify(setup), prices: JSON.stringify(prices), baseline_id: base.id, ...streaming, probes: base.probes ?? null },
      },
    );
  }
  const conversation = storedConversation(base);
  if (conversation) {
    // The same calls again: the same options, selection, texts and seed draw the same plan.
    await assertActiveSubscription(db, input.userId);
    return storeConversation(deps, newEvaluationId(), {
      userId: input.userId,
      name,
      texts: conversation.texts,
      speakers: conversation.speakers.map((speakerId) => ({ speakerId, group: ALL_GROUPS })),
      providers,
      conditions,
      normalizer: getNormalizer(base.normalizer),
      seed: Number(base.seed),
      baselineId: base.id,
      options: conversation.options,
    });
  }
  const speakers = (await listEvaluationSpeakers(db, base.id)).map((s) => ({ speakerId: s.speaker_id, group: s.grp }));
  await assertActiveSubscription(db, input.userId);
  return storeEvaluation(deps, {
    userId: input.userId,
    name,
    texts,
    speakers,
    groupBy: base.group_by,
    providers,
    conditions,
    // Today's version of the same normaliser: a changed version makes a comparison refuse, as it must.
    normalizer: getNormalizer(base.normalizer),
    seed: Number(base.seed),
    baselineId: base.id,
    streaming,
    ...(probes ? { probes } : {}),
  });
}
