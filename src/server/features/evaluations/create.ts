/**
 * Creating an evaluation (DESIGN §8.1, §10.5): the body parsed once into what was asked (request.ts), then
 * one strategy per source of speech checks what only it can and stores the evaluation with its queue.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import type { CreateEvaluationRequest, EvaluationCreated, EvaluationMode } from '../../../shared/schemas/evaluations.js';
import type { Normalizer } from '../../../shared/normalizers/index.js';
import { getDataset, listDatasetRows } from '../datasets/index.js';
import { insertEvaluation } from './repository.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import { reserveCharacters } from '../limits/index.js';
import { codePoints } from '../../../shared/text-rules.js';
import { assertActiveSubscription } from '../accounts/index.js';
import { checkSpeakerSpec, selectSpeakers, type SelectedSpeaker } from './speakers.js';
import { recordSetup, type DescribeProvider } from './setup.js';
import { evaluationOf } from './service.js';
import { createCorpusEvaluation, type CorpusReader } from './corpus-create.js';
import { probeClipKinds, probeSentences, type CheckedProbes } from './probes.js';
import type { ProbeText } from './repository.js';
import { parseEvaluationRequest, type CorpusSource, type EvaluationRequest, type EvaluationSourceRequest, type SynthesisedSource } from './request.js';
import { EVALUATION_LIMITS } from '../../../shared/constants.js';
import { storeConversation } from './conversations/create.js';

export { EVALUATION_LIMITS };
export { checkConditions, checkConfigured, checkEvaluationName, checkMode, checkProviders } from './checks.js';

/** A fresh evaluation id (`ev_` + 20 url-safe chars). */
export const newEvaluationId = (): string => `ev_${randomBytes(15).toString('base64url')}`;

/** Everything an evaluation is stored from, once validated. */
export interface EvaluationPlan {
  userId: string;
  name: string | null;
  texts: readonly string[];
  speakers: readonly SelectedSpeaker[];
  groupBy: string;
  providers: readonly string[];
  conditions: readonly string[];
  normalizer: Pick<Normalizer, 'name' | 'version'>;
  seed: number;
  baselineId: string | null;
  /** DESIGN §13.2: how the providers hear the audio; batch (pace null) when absent. */
  streaming?: { mode: EvaluationMode; pace: number | null };
  /** DESIGN §12: entity sentences and non-speech clips join `texts` here, seeded by `seed`. */
  probes?: CheckedProbes;
}

/** The texts of a plan with its probes' sentences and clips after them, and what each probe text is. */
function withProbeTexts(plan: Pick<EvaluationPlan, 'texts' | 'probes' | 'seed'>): { texts: string[]; probeTexts: (ProbeText | null)[]; clips: number } {
  const sentences = probeSentences(plan.probes, plan.seed);
  const clips = probeClipKinds(plan.probes);
  return {
    texts: [...plan.texts, ...sentences.map((s) => s.text), ...clips.map(() => '')],
    probeTexts: [...plan.texts.map(() => null), ...sentences.map((s) => ({ entity: s.entity })), ...clips.map((kind) => ({ kind }))],
    clips: clips.length,
  };
}

/** Utterances of an evaluation: spoken texts × speakers × conditions × providers, plus each clip once per provider. */
export function utteranceCount(n: { spoken: number; clips: number; speakers: number; conditions: number; providers: number }): number {
  return n.spoken * n.speakers * n.conditions * n.providers + n.clips * n.providers;
}

/**
 * Reserves the characters (Σ text code points × speakers) and stores the evaluation with its recorded
 * setup and its queue of syntheses in one transaction — a 429 stores nothing. Shared by create and rerun.
 */
export async function storeEvaluation(deps: { db: Db; now: Date; describe?: DescribeProvider }, plan: EvaluationPlan): Promise<EvaluationCreated> {
  const { db, now } = deps;
  const { texts, probeTexts, clips } = withProbeTexts(plan);
  const charactersOfText = texts.map(codePoints);
  const characters = charactersOfText.reduce((a, b) => a + b, 0) * plan.speakers.length;
  const id = newEvaluationId();
  const total = utteranceCount({ spoken: texts.length - clips, clips, speakers: plan.speakers.length, conditions: plan.conditions.length, providers: plan.providers.length });
  const { setup, prices } = recordSetup({ ...plan, describe: deps.describe });
  // The id is drawn above: on PostgreSQL this body may run again and must insert the same evaluation.
  await db.transaction(async () => {
    const { period } = await reserveCharacters(db, { userId: plan.userId, characters, now });
    await insertEvaluation(
      db,
      {
        id,
        user_id: plan.userId,
        name: plan.name,
        total_utterances: total,
        providers: JSON.stringify(plan.providers),
        conditions: JSON.stringify(plan.conditions),
        group_by: plan.groupBy,
        normalizer: plan.normalizer.name,
        normalizer_version: plan.normalizer.version,
        seed: plan.seed,
        period,
        created_at: now.toISOString(),
        setup: JSON.stringify(setup),
        baseline_id: plan.baselineId,
        prices: JSON.stringify(prices),
        ...plan.streaming,
        probes: plan.probes ? JSON.stringify(plan.probes) : null,
      },
      texts,
      plan.speakers,
      charactersOfText,
      probeTexts,
    );
  });
  return { evaluation_id: id, status: 'pending', total_utterances: total, created_at: now.toISOString() };
}

/** What creating an evaluation needs: the database, the time, and what the server's providers can do. */
export interface CreateDeps {
  db: Db;
  now: Date;
  describe?: DescribeProvider;
  isConfigured: (provider: string) => boolean;
  /** Whether a provider has a streaming adapter (DESIGN §13.1); none streams when absent. */
  canStream?: (provider: string) => boolean;
  corpora: CorpusReader;
}

/** One source of speech: what it checks beyond the parsed request, and how it stores the evaluation. */
type SourceStrategy<S extends EvaluationSourceRequest> = (deps: CreateDeps, userId: string, request: EvaluationRequest & { source: S }) => Promise<EvaluationCreated>;

/** Texts synthesised by a selection of speakers (DESIGN §8.1): characters reserved, one synthesis per text × speaker. */
const createSynthesised: SourceStrategy<SynthesisedSource> = async (deps, userId, request) => {
  const { db } = deps;
  const { source, probes, providers, conditions } = request;
  checkSpeakerSpec(source.speakers);
  const seed = source.speakers.seed ?? 0;
  const probed = withProbeTexts({ texts: source.texts, probes, seed });
  const overLimit = (speakers: number) =>
    utteranceCount({ spoken: probed.texts.length - probed.clips, clips: probed.clips, speakers, conditions: conditions.length, providers: providers.length }) > EVALUATION_LIMITS.utterances;
  const limitMessage = `Evaluation exceeds ${EVALUATION_LIMITS.utterances} utterances`;
  // Named ids are counted before they are looked up: an oversized request is refused on its size alone.
  // A conversation's utterances are its calls, whatever the number of speakers (checked when stored).
  if (!source.conversation && source.speakers.ids && overLimit(source.speakers.ids.length)) throw validationFailed(limitMessage);
  const selection = await selectSpeakers(db, source.speakers);
  if (!source.conversation && overLimit(selection.speakers.length)) throw validationFailed(limitMessage);
  if (request.baselineId !== null) await evaluationOf(db, request.baselineId, userId);
  await assertActiveSubscription(db, userId);
  if (source.conversation) {
    // DESIGN §16.1: the texts are turns of calls; a call, not a text × speaker, is each utterance.
    return storeConversation(deps, newEvaluationId(), {
      userId,
      name: request.name,
      texts: source.texts,
      speakers: selection.speakers,
      providers,
      conditions,
      normalizer: request.normalizer,
      seed,
      baselineId: request.baselineId,
      options: source.conversation,
    });
  }
  return storeEvaluation(deps, {
    userId,
    name: request.name,
    texts: source.texts,
    speakers: selection.speakers,
    groupBy: selection.groupBy,
    providers,
    conditions,
    normalizer: request.normalizer,
    seed,
    baselineId: request.baselineId,
    streaming: request.hearing,
    ...(probes ? { probes } : {}),
  });
};

/** A recorded corpus's utterances (DESIGN §10.5): nothing synthesised, no character charged. */
const createRecorded: SourceStrategy<CorpusSource> = async (deps, userId, request) => {
  const { db, now } = deps;
  const { providers, conditions, normalizer, probes, source } = request;
  if (request.baselineId !== null) await evaluationOf(db, request.baselineId, userId);
  const { setup, prices } = recordSetup({ providers, conditions, normalizer, seed: source.sample?.seed ?? 0, describe: deps.describe });
  return createCorpusEvaluation(
    { db, now, corpora: deps.corpora },
    {
      id: newEvaluationId(),
      userId,
      name: request.name,
      source,
      common: { providers, conditions, normalizer },
      ...(probes ? { probes } : {}),
      recorded: { setup: JSON.stringify(setup), prices: JSON.stringify(prices), baseline_id: request.baselineId, ...request.hearing, probes: probes ? JSON.stringify(probes) : null },
    },
  );
};

/**
 * POST /v1/evaluations (DESIGN §8.1): parses the body once (`parseEvaluationRequest`), then hands it to
 * its source's strategy, which checks the rest and stores it. A `baseline_id` must name one of the
 * caller's evaluations (404 otherwise).
 */
export async function createEvaluation(deps: CreateDeps, input: { userId: string; body: CreateEvaluationRequest }): Promise<EvaluationCreated> {
  const { db } = deps;
  const { userId } = input;
  const request = await parseEvaluationRequest(input.body, {
    isConfigured: deps.isConfigured,
    canStream: deps.canStream ?? (() => false),
    async datasetTexts(datasetId) {
      const dataset = await getDataset(db, datasetId, userId);
      if (!dataset) throw new DomainError('dataset_not_found', 'Dataset not found');
      return (await listDatasetRows(db, dataset)).map((r) => r.text);
    },
  });
  const { source } = request;
  return source.kind === 'corpus' ? createRecorded(deps, userId, { ...request, source }) : createSynthesised(deps, userId, { ...request, source });
}
