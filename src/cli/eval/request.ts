import { ConditionError, formatCondition, parseCondition } from '../../shared/conditions.js';
import type { CreateEvaluationRequest, EvaluationSpeakers } from '../../shared/schemas/evaluations.js';
import type { ConversationBody } from '../../shared/conversations/options.js';
import { parseProviders, type ProviderChoice } from '../core/stt-providers.js';
import type { HandlerContext } from '../core/context.js';
import { usageError } from '../core/errors.js';
import { readInputFile, readStdin } from '../core/util.js';

// The request of `voxctl eval run`, built from its flags and checked as far as the CLI can without the
// service: the same rules (shared parsers, the schema's names) and exit 2, before anything is created.

/** Reads `--texts FILE` (or `-` for stdin): one text per line, blank lines skipped. */
export function parseTextLines(content: string): string[] {
  return content
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
}

/** `--conditions a,b`: each checked with the service's own parser (same message, exit 2), in canonical form. */
export function parseConditions(value: string): string[] {
  return value
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
    .map((c) => {
      try {
        return formatCondition(parseCondition(c));
      } catch (e) {
        if (e instanceof ConditionError) throw usageError(e.message, 'conditions: clean, telephone, noise:{snr dB -10..40}, speed:{factor 0.5..2}');
        throw e;
      }
    });
}

/** The flags of `eval run`. */
export interface RunFlags {
  texts?: string;
  dataset?: string;
  /** A corpus id (`cor_…`) or a path to upload first. */
  corpus?: string;
  /** With --corpus: evaluate a seeded sample of this many utterances (--seed chooses it). */
  sample?: number;
  speaker?: string[];
  filter?: string[];
  groupBy?: string;
  perGroup?: number;
  seed?: number;
  providers: string;
  conditions?: string;
  normalizer?: string;
  name?: string;
  watch?: boolean;
  report?: string;
  force?: boolean;
  maxWer?: number;
  dryRun?: boolean;
  /** `batch` (default) or `streaming` (DESIGN §13.2). */
  mode?: string;
  /** Streaming only: 1 = real time. */
  pace?: number;
  /** Streaming only: the CI gate on the p95 of final latency (ms). */
  maxFinalLatency?: number;
  /** `non-speech[:clips[:seconds]]` (DESIGN §12.5). */
  probe?: string[];
  /** Entity types, comma-separated. */
  entities?: string;
  perType?: number;
  /** A file of terms (one per line), or terms comma-separated. */
  keyterms?: string;
  maxHallucination?: number;
  minEntityAccuracy?: number;
  /** `--conversation [calls[:turns[:speakers]]]` (DESIGN §16.6): commander gives `true` for the bare flag. */
  conversation?: string | boolean;
  /** With --conversation: the share of turns that start before the previous one ends (0..0.5). */
  overlap?: number;
  /** `--max-der X` (DESIGN §16.6). */
  maxDer?: number;
}

/**
 * The `probes` of `eval run` from `--probe non-speech[:clips[:seconds]]`, `--entities TYPE,… [--per-type N]`
 * and `--keyterms FILE|TERM,…` (DESIGN §12.5); undefined when none is asked.
 */
export async function probesFrom(flags: Pick<RunFlags, 'probe' | 'entities' | 'perType' | 'keyterms' | 'maxHallucination' | 'minEntityAccuracy'>): Promise<CreateEvaluationRequest['probes']> {
  const probes: NonNullable<CreateEvaluationRequest['probes']> = {};
  for (const p of flags.probe ?? []) {
    const { parseNonSpeechProbe } = await import('../../shared/non-speech.js');
    const parsed = parseNonSpeechProbe(p.trim());
    if (parsed === undefined) throw usageError(`--probe must be non-speech[:clips[:seconds]], got '${p}'`);
    if ('problem' in parsed) throw usageError(`--probe: ${parsed.problem}`);
    probes.non_speech = parsed;
  }
  if (flags.entities !== undefined) {
    const { ENTITY_TYPES } = await import('../../shared/entities/types.js');
    const types = flags.entities.split(',').map((t) => t.trim()).filter(Boolean);
    for (const t of types) if (!(ENTITY_TYPES as readonly string[]).includes(t)) throw usageError(`--entities takes ${ENTITY_TYPES.join(', ')}, got '${t}'`);
    if (types.length === 0) throw usageError('--entities needs at least one type');
    probes.entities = { types, ...(flags.perType !== undefined ? { per_type: flags.perType } : {}) };
  } else if (flags.perType !== undefined) throw usageError('--per-type applies to --entities');
  if (flags.keyterms !== undefined) {
    const { existsSync } = await import('node:fs');
    const terms = existsSync(flags.keyterms) ? parseTextLines((await readInputFile(flags.keyterms)).toString('utf8')) : flags.keyterms.split(',').map((t) => t.trim()).filter(Boolean);
    if (terms.length === 0) throw usageError(`--keyterms: no terms in '${flags.keyterms}'`);
    probes.keyterms = { terms };
  }
  if (flags.maxHallucination !== undefined && !probes.non_speech) throw usageError('--max-hallucination needs --probe non-speech');
  if (flags.minEntityAccuracy !== undefined && !probes.entities) throw usageError('--min-entity-accuracy needs --entities');
  return Object.keys(probes).length ? probes : undefined;
}

/** Parses a rate gate (`--max-hallucination`, `--min-entity-accuracy`): a number from 0 to 1. */
export function rateOption(flag: string): (value: string) => number {
  return (value) => {
    const x = Number(value);
    if (value.trim() === '' || !Number.isFinite(x) || x < 0 || x > 1) throw usageError(`${flag} must be a number from 0 to 1 (0.05 = 5%), got '${value}'`);
    return x;
  };
}

/** What `eval run` will ask for: the body without its providers, and the providers as given (`all` is resolved against the service). */
export interface RunPlan {
  body: Omit<CreateEvaluationRequest, 'providers'>;
  providers: ProviderChoice;
}

/**
 * The voices of a conversation when none are chosen (DESIGN §16.6's `eval run --texts F --conversation`
 * names none): two of each gender from the whole catalogue, seeded — enough for 4 speakers a call.
 */
export const CONVERSATION_DEFAULT_SPEAKERS = Object.freeze({ filter: {}, group_by: 'gender', per_group: 2 } as const);

/**
 * The speaker selection of `eval run`: `--speaker` ids, or `--filter key=value…` with `--group-by` and
 * `--per-group`; a conversation without either takes CONVERSATION_DEFAULT_SPEAKERS. Keys and groupings
 * come from the shared schema (loaded here, not at CLI start-up).
 */
export async function speakerSelection(flags: Pick<RunFlags, 'speaker' | 'filter' | 'groupBy' | 'perGroup' | 'seed'>, opts: { conversation?: boolean } = {}): Promise<EvaluationSpeakers> {
  const { EVALUATION_GROUP_BY, EvaluationSpeakerFilter } = await import('../../shared/schemas/evaluations.js');
  if (flags.groupBy !== undefined && !(EVALUATION_GROUP_BY as readonly string[]).includes(flags.groupBy)) {
    throw usageError(`--group-by must be one of ${EVALUATION_GROUP_BY.join(', ')}, got '${flags.groupBy}'`);
  }
  const groupBy = flags.groupBy as EvaluationSpeakers['group_by'];
  const seed = flags.seed === undefined ? {} : { seed: flags.seed };
  const ids = (flags.speaker ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  if (ids.length > 0) {
    if (flags.filter?.length) throw usageError('Give either --speaker or --filter, not both');
    if (flags.perGroup !== undefined) throw usageError('--per-group applies to --filter; with --speaker every named speaker is used');
    return { ids, ...(groupBy ? { group_by: groupBy } : {}), ...seed };
  }
  if (!flags.filter?.length && groupBy === undefined && flags.perGroup === undefined) {
    if (opts.conversation) return { ...CONVERSATION_DEFAULT_SPEAKERS, filter: {}, ...seed };
    throw usageError('Choose speakers with --speaker ID… or --filter key=value… --group-by G --per-group K', 'see `voxctl speakers facets` for the values');
  }
  const keys = Object.keys(EvaluationSpeakerFilter.properties);
  const filter: Record<string, string> = {};
  for (const kv of flags.filter ?? []) {
    const eq = kv.indexOf('=');
    const key = eq > 0 ? kv.slice(0, eq).trim().replace(/-/g, '_') : '';
    if (!keys.includes(key) || eq === kv.length - 1) throw usageError(`--filter takes key=value with key one of ${keys.join(', ')}, got '${kv}'`);
    filter[key] = kv.slice(eq + 1).trim();
  }
  if (groupBy === undefined || flags.perGroup === undefined) throw usageError('--filter needs --group-by G and --per-group K', 'e.g. --group-by accent --per-group 2');
  return { filter, group_by: groupBy, per_group: flags.perGroup, ...seed };
}

/** The request of `eval run`, validated as far as the CLI can without the service. */
export async function runRequest(ctx: HandlerContext, flags: RunFlags): Promise<RunPlan> {
  const sources = [flags.texts, flags.dataset, flags.corpus].filter((v) => v !== undefined).length;
  if (sources !== 1) throw usageError('Give exactly one of --texts FILE, --dataset ID or --corpus ID|PATH');
  if (flags.corpus === undefined && flags.sample !== undefined) throw usageError('--sample applies to --corpus');
  let texts: string[] | undefined;
  if (flags.texts !== undefined) {
    texts = parseTextLines(flags.texts === '-' ? await readStdin(ctx) : (await readInputFile(flags.texts)).toString('utf8'));
    if (texts.length === 0) throw usageError(`${flags.texts} has no texts (one per line)`);
  }
  const providers = parseProviders(flags.providers);
  const conditions = flags.conditions === undefined ? undefined : parseConditions(flags.conditions);
  if (conditions?.length === 0) throw usageError('--conditions needs at least one condition');
  let normalizer: CreateEvaluationRequest['normalizer'];
  if (flags.normalizer !== undefined) {
    const { NORMALIZER_NAMES } = await import('../../shared/normalizers/index.js');
    if (!(NORMALIZER_NAMES as readonly string[]).includes(flags.normalizer)) throw usageError(`--normalizer must be one of ${NORMALIZER_NAMES.join(', ')}, got '${flags.normalizer}'`);
    normalizer = flags.normalizer as CreateEvaluationRequest['normalizer'];
  }
  if (flags.mode !== undefined && flags.mode !== 'batch' && flags.mode !== 'streaming') throw usageError(`--mode must be batch or streaming, got '${flags.mode}'`);
  const streaming = flags.mode === 'streaming';
  if (!streaming && flags.pace !== undefined) throw usageError('--pace applies to --mode streaming');
  if (!streaming && flags.maxFinalLatency !== undefined) throw usageError('--max-final-latency applies to --mode streaming');
  const probes = await probesFrom(flags);
  const conversation = await conversationFrom(flags);
  if (flags.maxDer !== undefined && !conversation && flags.corpus === undefined) throw usageError('--max-der needs --conversation (or a corpus of recorded calls)');
  const common = {
    ...(probes ? { probes } : {}),
    ...(conversation ? { conversation } : {}),
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(streaming ? { mode: 'streaming' as const, ...(flags.pace !== undefined ? { pace: flags.pace } : {}) } : {}),
    ...(conditions ? { conditions } : {}),
    ...(normalizer ? { normalizer } : {}),
  };
  if (flags.corpus !== undefined) {
    // The service's own message for the same mistake (exit 2 either way).
    if (flags.speaker?.length || flags.filter?.length || flags.perGroup !== undefined) throw usageError('speakers does not apply to a corpus');
    const body = {
      ...common,
      corpus_id: flags.corpus,
      ...(flags.groupBy !== undefined ? { group_by: flags.groupBy } : {}),
      // The seed of a corpus evaluation travels in `sample` (it also seeds noise and the bootstrap): with
      // --seed alone, a sample as large as any corpus keeps every utterance.
      ...(flags.sample !== undefined || flags.seed !== undefined
        ? { sample: { size: flags.sample ?? 20_000, ...(flags.seed !== undefined ? { seed: flags.seed } : {}) } }
        : {}),
    };
    return { body, providers };
  }
  const body = {
    ...common,
    ...(texts ? { texts } : { dataset_id: flags.dataset! }),
    speakers: await speakerSelection(flags, { conversation: conversation !== undefined }),
  };
  return { body, providers };
}

/** Parses an error-rate gate (a rate, 0 or more: 0.25 means 25%; WER and DER can pass 1). */
function errorRateOption(flag: string, metric: string): (value: string) => number {
  return (value) => {
    const x = Number(value);
    if (value.trim() === '' || !Number.isFinite(x) || x < 0) throw usageError(`${flag} must be a number ≥ 0 (0.25 = 25% ${metric}), got '${value}'`);
    return x;
  };
}

/** Parses `--max-wer X` (a WER, 0 or more: 0.25 means 25%). */
export const werOption = errorRateOption('--max-wer', 'WER');

/** Parses `--overlap X` (0..0.5; the range itself is the service's rule, checked with the rest of the conversation). */
export function overlapOption(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x)) throw usageError(`--overlap must be a number from 0 to 0.5, got '${value}'`);
  return x;
}

/** Parses `--max-der X` (a DER, 0 or more: 0.25 means 25%). */
export const derOption = errorRateOption('--max-der', 'DER');

/**
 * The `conversation` of `eval run` from `--conversation [calls[:turns[:speakers]]]` and `--overlap X`
 * (DESIGN §16.6), checked by the rule the service applies; undefined without --conversation.
 */
export async function conversationFrom(flags: Pick<RunFlags, 'conversation' | 'overlap' | 'corpus'>): Promise<ConversationBody | undefined> {
  if (flags.conversation === undefined || flags.conversation === false) {
    if (flags.overlap !== undefined) throw usageError('--overlap applies to --conversation');
    return undefined;
  }
  const { CONVERSATION_CORPUS_MESSAGE, checkConversation, parseConversationFlag } = await import('../../shared/conversations/options.js');
  if (flags.corpus !== undefined) throw usageError(CONVERSATION_CORPUS_MESSAGE);
  const { DomainError } = await import('../../shared/errors.js');
  try {
    const asked = { ...parseConversationFlag(flags.conversation === true ? '' : flags.conversation), ...(flags.overlap !== undefined ? { overlap: flags.overlap } : {}) };
    checkConversation(asked);
    return asked;
  } catch (e) {
    // The service's own message for the same value (`conversation.turns must be 2..60`), as a usage error.
    if (e instanceof DomainError) throw usageError(e.message);
    throw e;
  }
}
