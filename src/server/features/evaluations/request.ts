/**
 * POST /v1/evaluations parsed once (issue 32 item 2): the flat body of the wire — fifteen fields, most of
 * them meaningful for one source or one mode only — becomes a discriminated union of what was asked:
 * where the speech comes from × how the providers hear it × which probes run. Every rule of the body that
 * does not need the database beyond the dataset's rows is checked here, in the order DESIGN §8.1, §10.5,
 * §12 and §13.2 give their messages; the source strategies (create.ts) check the rest.
 */
import type { CreateEvaluationRequest, EvaluationSample, EvaluationSpeakers } from '../../../shared/schemas/evaluations.js';
import { getNormalizer, type Normalizer } from '../../../shared/normalizers/index.js';
import { whitespaceTokens } from '../../../shared/normalize.js';
import { EMPTY_REFERENCE_MESSAGE } from '../../../shared/accuracy.js';
import { validationFailed } from '../../../shared/errors.js';
import { assertValidText } from '../../../shared/text-rules.js';
import { EVALUATION_LIMITS } from '../../../shared/constants.js';
import { evaluationSource } from './source.js';
import { checkProbes, type CheckedProbes } from './probes.js';
import { checkConversation, CONVERSATION_CORPUS_MESSAGE } from '../../../shared/conversations/options.js';
import type { ConversationOptions } from '../../../shared/conversations/plan.js';
import { checkConditions, checkConfigured, checkEvaluationName, checkMode, checkProviders } from './checks.js';

/** Texts to synthesise (`texts`, or a dataset's rows) with a selection of catalogue speakers (DESIGN §8.1). */
export interface SynthesisedSource {
  kind: 'synthesised';
  texts: string[];
  speakers: EvaluationSpeakers;
  /** DESIGN §16.1: the texts become turns of synthetic calls; absent for an ordinary evaluation. */
  conversation?: ConversationOptions;
}

/** A recorded corpus's utterances, or a seeded sample of them, grouped by `groupBy` (DESIGN §10.5). */
export interface CorpusSource {
  kind: 'corpus';
  corpusId: string;
  groupBy?: string;
  sample?: EvaluationSample;
}

/** Where an evaluation's speech comes from. */
export type EvaluationSourceRequest = SynthesisedSource | CorpusSource;

/** How the providers hear the audio (DESIGN §13.2): whole files, or a stream at `pace` × real time. */
export type Hearing = { mode: 'batch'; pace: null } | { mode: 'streaming'; pace: number };

/** A valid POST /v1/evaluations, as the source strategies store it. */
export interface EvaluationRequest {
  name: string | null;
  source: EvaluationSourceRequest;
  providers: string[];
  conditions: string[];
  normalizer: Normalizer;
  hearing: Hearing;
  /** DESIGN §12: the passes beyond WER; absent when none was asked. */
  probes?: CheckedProbes;
  baselineId: string | null;
}

/** What parsing needs beyond the body: which providers this server can call and stream to, and a dataset's texts. */
export interface RequestContext {
  isConfigured(provider: string): boolean;
  /** Whether a provider has a streaming adapter (DESIGN §13.1). */
  canStream(provider: string): boolean;
  /** The texts of the caller's dataset, in row order; throws `dataset_not_found` (404). */
  datasetTexts(datasetId: string): Promise<string[]>;
}

/** Each source's rules of the body: what it refuses, and its speech checked before the common parts. */
interface SourceRules {
  /** Fields of the body that belong to another source, refused first (the first rule after the source). */
  refuse(body: CreateEvaluationRequest): void;
  /** The source itself, checked before the providers (a text's error is reported before a provider's). */
  read(body: CreateEvaluationRequest, normalizer: Normalizer, ctx: RequestContext): Promise<EvaluationSourceRequest>;
  /** Probes that cannot apply to this source (DESIGN §15.5). */
  refuseProbes(body: CreateEvaluationRequest): void;
}

/** `texts` (rule 6 each, `Text {i}: `) or a dataset's rows; each must keep a word after normalisation. */
async function readTexts(body: CreateEvaluationRequest, normalizer: Normalizer, ctx: RequestContext): Promise<string[]> {
  let texts: string[];
  if (body.texts) {
    texts = body.texts;
    if (texts.length === 0) throw validationFailed('Evaluation must contain at least one text');
    if (texts.length > EVALUATION_LIMITS.texts) throw validationFailed(`Evaluation exceeds maximum of ${EVALUATION_LIMITS.texts} texts`);
    texts.forEach((t, i) => assertValidText(t, `Text ${i}: `));
  } else {
    texts = await ctx.datasetTexts(body.dataset_id!);
  }
  // A text with no word left after normalisation (e.g. only "(laughs)" under whisper-en) cannot be scored.
  texts.forEach((t, i) => {
    if (whitespaceTokens(normalizer.normalize(t)).length === 0) throw validationFailed(`Text ${i}: ${EMPTY_REFERENCE_MESSAGE}`);
  });
  return texts;
}

const synthesised: SourceRules = {
  refuse(body) {
    // Top-level group_by and sample choose among recordings; synthesised speech is grouped by speakers.group_by.
    if (body.group_by !== undefined) throw validationFailed('group_by applies to a corpus; use speakers.group_by');
    if (body.sample !== undefined) throw validationFailed('sample applies to a corpus');
    if (body.speakers === undefined) throw validationFailed('speakers is required with texts or dataset_id');
  },
  async read(body, normalizer, ctx) {
    const texts = await readTexts(body, normalizer, ctx);
    // DESIGN §16.1: each field of `conversation` out of range is a 400 naming it, after the texts' own rules.
    const conversation = body.conversation === undefined ? undefined : checkConversation(body.conversation);
    return { kind: 'synthesised', texts, speakers: body.speakers!, ...(conversation ? { conversation } : {}) };
  },
  refuseProbes() {},
};

const corpus: SourceRules = {
  refuse(body) {
    if (body.speakers !== undefined) throw validationFailed('speakers does not apply to a corpus');
    // Synthetic calls are built from texts; a recorded corpus's calls come from its STM layout (DESIGN §16.1, §16.5).
    if (body.conversation !== undefined) throw validationFailed(CONVERSATION_CORPUS_MESSAGE);
  },
  async read(body) {
    return {
      kind: 'corpus',
      corpusId: body.corpus_id!,
      ...(body.group_by !== undefined ? { groupBy: body.group_by } : {}),
      ...(body.sample !== undefined ? { sample: body.sample } : {}),
    };
  },
  refuseProbes(body) {
    // Entity sentences are written to be read by a voice: a recording says what it says (DESIGN §15.5).
    // Keyterms are heard on the recordings, and non-speech clips join them as they join any evaluation.
    if (body.probes?.entities) throw validationFailed('entities does not apply to a corpus');
  },
};

/** A conversation with probes: its texts are turns of calls, not utterances a probe can join. */
export const CONVERSATION_PROBES_MESSAGE = 'probes do not apply to a conversation';
/** A conversation heard as a stream (DESIGN §16 measures calls heard whole). */
export const CONVERSATION_STREAMING_MESSAGE = 'conversation needs mode batch';

const SOURCE_RULES = { texts: synthesised, dataset_id: synthesised, corpus_id: corpus } as const;

/**
 * Parses a POST /v1/evaluations body into an `EvaluationRequest`, or throws the first rule it breaks:
 * the source (exactly one), fields of another source, the name, the source's speech, providers,
 * their configuration and mode, conditions, probes.
 */
export async function parseEvaluationRequest(body: CreateEvaluationRequest, ctx: RequestContext): Promise<EvaluationRequest> {
  // The source first, before any other rule of the body (DESIGN §10.5).
  const rules = SOURCE_RULES[evaluationSource(body)];
  rules.refuse(body);
  checkEvaluationName(body.name);
  const normalizer = getNormalizer(body.normalizer ?? 'basic');
  const source = await rules.read(body, normalizer, ctx);
  const providers = checkProviders(body.providers);
  checkConfigured(providers, ctx.isConfigured);
  const hearing = checkMode(body, providers, ctx.canStream);
  const conditions = checkConditions(body.conditions);
  rules.refuseProbes(body);
  const probes = checkProbes(body.probes, conditions);
  // A call is one track heard whole: its turns are the texts, so probes cannot join them, and a stream of
  // minutes measures endpointing rather than who said what (DESIGN §16 leaves both out).
  if (body.conversation !== undefined && probes) throw validationFailed(CONVERSATION_PROBES_MESSAGE);
  if (body.conversation !== undefined && hearing.mode === 'streaming') throw validationFailed(CONVERSATION_STREAMING_MESSAGE);
  return {
    name: body.name ?? null,
    source,
    providers,
    conditions,
    normalizer,
    hearing,
    ...(probes ? { probes } : {}),
    baselineId: body.baseline_id ?? null,
  };
}
