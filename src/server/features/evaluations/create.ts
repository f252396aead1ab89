import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import type { CreateEvaluationRequest, EvaluationCreated, EvaluationMode } from '../../../shared/schemas/evaluations.js';
import { ALL_PROVIDERS } from '../../../shared/schemas/stt.js';
import { formatCondition, parseCondition } from '../../../shared/conditions.js';
import { getNormalizer, type Normalizer } from '../../../shared/normalizers/index.js';
import { whitespaceTokens } from '../../../shared/normalize.js';
import { EMPTY_REFERENCE_MESSAGE } from '../../../shared/accuracy.js';
import { getDataset, listDatasetRows } from '../datasets/index.js';
import { insertEvaluation } from './repository.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import { reserveCharacters } from '../limits/index.js';
import { assertValidText, codePoints } from '../../../shared/text-rules.js';
import { assertActiveSubscription } from '../accounts/index.js';
import { checkSpeakerSpec, selectSpeakers, type SelectedSpeaker } from './speakers.js';
import { recordSetup, type DescribeProvider } from './setup.js';
import { evaluationOf } from './service.js';
import { evaluationSource } from './source.js';
import { createCorpusEvaluation, type CorpusReader } from './corpus-create.js';
import { checkProbes, probeClipKinds, probeSentences, type CheckedProbes } from './probes.js';
import type { ProbeText } from './repository.js';

import { EVALUATION_LIMITS } from '../../../shared/constants.js';

export { EVALUATION_LIMITS };

/** A fresh evaluation id (`ev_` + 20 url-safe chars). */
export const newEvaluationId = (): string => `ev_${randomBytes(15).toString('base64url')}`;

/** The texts of the request: `texts` (rule 6 each, `Text {i}: `) or the rows of `dataset_id`. */
async function resolveTexts(db: Db, userId: string, body: CreateEvaluationRequest, normalizer: Normalizer): Promise<string[]> {
  let texts: string[];
  if (body.texts) {
    texts = body.texts;
    if (texts.length === 0) throw validationFailed('Evaluation must contain at least one text');
    if (texts.length > EVALUATION_LIMITS.texts) throw validationFailed(`Evaluation exceeds maximum of ${EVALUATION_LIMITS.texts} texts`);
    texts.forEach((t, i) => assertValidText(t, `Text ${i}: `));
  } else {
    const dataset = await getDataset(db, body.dataset_id!, userId);
    if (!dataset) throw new DomainError('dataset_not_found', 'Dataset not found');
    texts = (await listDatasetRows(db, dataset)).map((r) => r.text);
  }
  // A text with no word left after normalisation (e.g. only "(laughs)" under whisper-en) cannot be scored.
  texts.forEach((t, i) => {
    if (whitespaceTokens(normalizer.normalize(t)).length === 0) throw validationFailed(`Text ${i}: ${EMPTY_REFERENCE_MESSAGE}`);
  });
  return texts;
}

/** Checks a list of names: 1..max, distinct, each known; returns them in request order. */
function checkList(values: string[], what: { noun: string; plural: string; max: number; known: (v: string) => string }): string[] {
  if (values.length === 0) throw validationFailed(`At least one ${what.noun} is required`);
  if (values.length > what.max) throw validationFailed(`At most ${what.max} ${what.plural} can be evaluated at once`);
  const seen = new Set<string>();
  return values.map((v) => {
    const canonical = what.known(v);
    if (seen.has(canonical)) throw validationFailed(`Duplicate ${what.noun}: ${v}`);
    seen.add(canonical);
    return canonical;
  });
}

/** `providers` as rule 11 with room for every token at once (1..10). */
export function checkProviders(providers: string[]): string[] {
  return checkList(providers, {
    noun: 'provider',
    plural: 'providers',
    max: EVALUATION_LIMITS.providers,
    known: (p) => {
      if (!ALL_PROVIDERS.includes(p)) throw validationFailed(`Unknown provider: ${p}`);
      return p;
    },
  });
}

/** An evaluation's `name`, when given, is 1..200 code points (of a new evaluation and of a rerun alike). */
export function checkEvaluationName(name: string | undefined): void {
  if (name !== undefined && (codePoints(name) < 1 || codePoints(name) > EVALUATION_LIMITS.name)) {
    throw validationFailed(`Name must be 1 to ${EVALUATION_LIMITS.name} characters`);
  }
}

/**
 * Refuses a provider the server cannot call (`Provider not configured: {name}`, after every name is known):
 * an evaluation must never run only to fail every utterance of a provider (DESIGN §8.1).
 */
export function checkConfigured(providers: readonly string[], isConfigured: (provider: string) => boolean): void {
  for (const p of providers) if (!isConfigured(p)) throw validationFailed(`Provider not configured: ${p}`);
}

/**
 * The mode of an evaluation (DESIGN §13.2): `batch` by default; `streaming` needs every provider to stream
 * (`Provider does not stream: {token}`) and takes `pace` (default 1.0), which batch mode refuses.
 */
export function checkMode(
  body: Pick<CreateEvaluationRequest, 'mode' | 'pace'>,
  providers: readonly string[],
  canStream: (provider: string) => boolean,
): { mode: EvaluationMode; pace: number | null } {
  const mode = body.mode ?? 'batch';
  if (mode === 'batch') {
    if (body.pace !== undefined) throw validationFailed('pace applies to streaming mode');
    return { mode, pace: null };
  }
  for (const p of providers) if (!canStream(p)) throw validationFailed(`Provider does not stream: ${p}`);
  return { mode, pace: body.pace ?? 1 };
}

/** `conditions` (default `clean`) in canonical form (`noise:5.0` → `noise:5`); `Unknown condition: {c}`. */
export function checkConditions(conditions: string[] | undefined): string[] {
  return checkList(conditions ?? ['clean'], {
    noun: 'condition',
    plural: 'conditions',
    max: EVALUATION_LIMITS.conditions,
    // An unknown condition throws a validation_failed domain error (400).
    known: (c) => formatCondition(parseCondition(c)),
  });
}

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

/**
 * POST /v1/evaluations (DESIGN §8.1): validates everything, then stores it (`storeEvaluation`). A
 * `baseline_id` must name one of the caller's evaluations (404 otherwise).
 */
export async function createEvaluation(
  deps: {
    db: Db;
    now: Date;
    describe?: DescribeProvider;
    isConfigured: (provider: string) => boolean;
    /** Whether a provider has a streaming adapter (DESIGN §13.1); none streams when absent. */
    canStream?: (provider: string) => boolean;
    corpora: CorpusReader;
  },
  input: { userId: string; body: CreateEvaluationRequest },
): Promise<EvaluationCreated> {
  const { db, now } = deps;
  const { body, userId } = input;
  // The source first, before any other rule of the body (DESIGN §10.5).
  const source = evaluationSource(body);
  if (source === 'corpus_id' && body.speakers !== undefined) throw validationFailed('speakers does not apply to a corpus');
  checkEvaluationName(body.name);
  const normalizer = getNormalizer(body.normalizer ?? 'basic');
  if (source === 'corpus_id') {
    const providers = checkProviders(body.providers);
    checkConfigured(providers, deps.isConfigured);
    const streaming = checkMode(body, providers, deps.canStream ?? (() => false));
    const conditions = checkConditions(body.conditions);
    // Entity sentences are written to be read by a voice: a recording says what it says (DESIGN §15.5).
    // Keyterms are heard on the recordings, and non-speech clips join them as they join any evaluation.
    if (body.probes?.entities) throw validationFailed('entities does not apply to a corpus');
    const probes = checkProbes(body.probes, conditions);
    if (body.baseline_id !== undefined) await evaluationOf(db, body.baseline_id, userId);
    const { setup, prices } = recordSetup({ providers, conditions, normalizer, seed: body.sample?.seed ?? 0, describe: deps.describe });
    return createCorpusEvaluation(
      { db, now, corpora: deps.corpora },
      {
        id: newEvaluationId(),
        userId,
        body,
        common: { providers, conditions, normalizer },
        ...(probes ? { probes } : {}),
        recorded: { setup: JSON.stringify(setup), prices: JSON.stringify(prices), baseline_id: body.baseline_id ?? null, ...streaming, probes: probes ? JSON.stringify(probes) : null },
      },
    );
  }
  // Top-level group_by and sample choose among recordings; synthesised speech is grouped by speakers.group_by.
  if (body.group_by !== undefined) throw validationFailed('group_by applies to a corpus; use speakers.group_by');
  if (body.sample !== undefined) throw validationFailed('sample applies to a corpus');
  if (body.speakers === undefined) throw validationFailed('speakers is required with texts or dataset_id');
  const speakerSpec = body.speakers;
  const texts = await resolveTexts(db, userId, body, normalizer);
  const providers = checkProviders(body.providers);
  checkConfigured(providers, deps.isConfigured);
  const streaming = checkMode(body, providers, deps.canStream ?? (() => false));
  const conditions = checkConditions(body.conditions);
  const probes = checkProbes(body.probes, conditions);
  checkSpeakerSpec(speakerSpec);
  const seed = speakerSpec.seed ?? 0;
  const probed = withProbeTexts({ texts, probes, seed });
  const overLimit = (speakers: number) =>
    utteranceCount({ spoken: probed.texts.length - probed.clips, clips: probed.clips, speakers, conditions: conditions.length, providers: providers.length }) > EVALUATION_LIMITS.utterances;
  const limitMessage = `Evaluation exceeds ${EVALUATION_LIMITS.utterances} utterances`;
  // Named ids are counted before they are looked up: an oversized request is refused on its size alone.
  if (speakerSpec.ids && overLimit(speakerSpec.ids.length)) throw validationFailed(limitMessage);
  const selection = await selectSpeakers(db, speakerSpec);
  if (overLimit(selection.speakers.length)) throw validationFailed(limitMessage);
  if (body.baseline_id !== undefined) await evaluationOf(db, body.baseline_id, userId);
  await assertActiveSubscription(db, userId);
  return storeEvaluation(deps, {
    userId,
    name: body.name ?? null,
    texts,
    speakers: selection.speakers,
    groupBy: selection.groupBy,
    providers,
    conditions,
    normalizer,
    seed,
    baselineId: body.baseline_id ?? null,
    streaming,
    ...(probes ? { probes } : {}),
  });
}
