// `voxctl eval run --dry-run` (DESIGN §8.7, §15.8): what an evaluation would cost before it runs —
// utterances, characters, audio minutes and, where a provider binding carries a price, dollars — creating
// nothing. Synthesised speech is estimated from its texts; a corpus (eval-dry-run-corpus.ts) from its audio.
import { paginate, type VoxClient } from '../../client/index.js';
import { EVALUATION_LIMITS } from '../../shared/constants.js';
import { parseCondition } from '../../shared/conditions.js';
import { providerLabel } from '../../shared/providers.js';
import type { CreateEvaluationRequest, EvaluationSpeakers } from '../../shared/schemas/evaluations.js';
import { usageError } from '../core/errors.js';
import type { Output } from '../core/output.js';
import type { ProviderView } from '../core/stt-providers.js';
import { NON_SPEECH_LIMITS } from '../../shared/non-speech.js';
import { checkConversation, ConversationPlanError, conversationCharacters, type ConversationBody } from '../../shared/conversations/index.js';

/**
 * Speech rate of the audio-minutes estimate: about 150 words a minute at ~6 characters a word
 * (spaces included) — the pace of the catalogue's voices at their default rate. The real duration is
 * known only once synthesised; the estimate says so.
 */
export const CHARACTERS_PER_SECOND = 15;
/** How the audio minutes were estimated, said with every dry run. */
export const AUDIO_ESTIMATE = `estimated at ${CHARACTERS_PER_SECOND} characters per second of speech (the real duration is known once synthesised)`;

/** One provider's share of a dry run. */
export interface DryRunProvider {
  provider: string;
  label: string;
  utterances: number;
  audio_minutes: number;
  price_per_minute_usd: number | null;
  cost_usd: number | null;
}

/** What `eval run --dry-run` prints (`--json`: this object). */
export interface DryRun {
  dry_run: true;
  texts: number;
  speakers: number;
  /** A conversation evaluation (DESIGN §16.1): its calls, each one utterance per condition and provider. */
  calls?: number;
  conditions: string[];
  providers: DryRunProvider[];
  utterances: number;
  /** Σ text code points × speakers: what synthesis charges (DESIGN §8.1). */
  characters: number;
  /** Characters left this billing period, when the usage could be read. */
  characters_left: number | null;
  audio_minutes: number;
  audio_minutes_estimate: string;
  /** Σ of the priced providers' costs; null when no provider is priced. */
  cost_usd: number | null;
  unpriced_providers: string[];
  within_limits: boolean;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** How many speakers a selection resolves to: the ids, or `per_group` of each group value among the filter's matches (the service's rule). */
async function speakerCount(client: VoxClient, spec: EvaluationSpeakers): Promise<number> {
  if (spec.ids) return spec.ids.length;
  const groupBy = spec.group_by ?? 'accent';
  const sizes = new Map<string, number>();
  for await (const s of paginate((p) => client.listSpeakers({ ...(spec.filter ?? {}), ...p, limit: 100 }), 0)) {
    const value = String((s as Record<string, unknown>)[groupBy] ?? '');
    sizes.set(value, (sizes.get(value) ?? 0) + 1);
  }
  if (sizes.size === 0) throw usageError('No speakers match the filter', 'see `voxctl speakers facets` for the values');
  return [...sizes.values()].reduce((n, size) => n + Math.min(size, spec.per_group ?? 1), 0);
}

/** The probe's entity sentences (DESIGN §12.3), written here exactly as the service will: the same types, count and seed. */
async function probeTexts(body: Omit<CreateEvaluationRequest, 'providers'>): Promise<string[]> {
  const e = body.probes?.entities;
  if (!e) return [];
  const { entitySentences, ENTITY_PER_TYPE } = await import('../../shared/entities/index.js');
  return entitySentences(e.types as Parameters<typeof entitySentences>[0], e.per_type ?? ENTITY_PER_TYPE.default, body.speakers?.seed ?? 0).map((x) => x.text);
}

/**
 * The characters an evaluation charges: Σ text code points × speakers (DESIGN §8.1; entity sentences count,
 * clips do not), or for a conversation every turn of every call (§16.1).
 */
export async function evaluationCharacters(client: VoxClient, body: Omit<CreateEvaluationRequest, 'providers'>): Promise<number> {
  // Recorded speech is not synthesised: a corpus evaluation charges nothing (DESIGN §10.4).
  if (body.speakers === undefined) return 0;
  const texts = await evaluationTexts(client, body);
  return synthesis(body, texts, await speakerCount(client, body.speakers)).characters;
}

/** The texts an evaluation synthesises: its own or its dataset's, then the probe's entity sentences. */
async function evaluationTexts(client: VoxClient, body: Omit<CreateEvaluationRequest, 'providers'>): Promise<string[]> {
  return [...(body.texts ?? (await client.getDataset(body.dataset_id!)).rows.map((r) => r.text)), ...(await probeTexts(body))];
}

/**
 * What an evaluation of synthesised speech makes: each text once per speaker, or for a conversation every
 * turn of every call (with the number of calls); `characters` is what it is charged.
 */
function synthesis(body: Omit<CreateEvaluationRequest, 'providers'>, texts: readonly string[], speakers: number): { calls?: number; characters: number } {
  if (body.conversation) return conversationPlan(body.conversation, { texts, speakers, seed: body.speakers?.seed ?? 0 });
  return { characters: texts.reduce((n, t) => n + [...t].length, 0) * speakers };
}

/** Each provider's utterances, audio minutes and cost (`price_per_minute_usd` of its binding; null when unpriced). */
export function providerRows(providers: readonly string[], known: readonly ProviderView[], each: { utterances: number; minutes: number }): DryRunProvider[] {
  const byId = new Map(known.map((p) => [p.id, p]));
  return providers.map((id): DryRunProvider => {
    const p = byId.get(id);
    const price = typeof p?.price_per_minute_usd === 'number' ? p.price_per_minute_usd : null;
    return {
      provider: id,
      label: p ? providerLabel(p) : id,
      utterances: each.utterances,
      audio_minutes: round(each.minutes, 2),
      price_per_minute_usd: price,
      cost_usd: price === null ? null : round(each.minutes * price, 6),
    };
  });
}

/** The sum of the priced providers' costs (null when none is priced) and the tokens of the unpriced ones. */
export function costOf(rows: readonly DryRunProvider[]): { cost_usd: number | null; unpriced_providers: string[] } {
  const priced = rows.filter((r) => r.cost_usd !== null);
  return {
    cost_usd: priced.length ? round(priced.reduce((n, r) => n + r.cost_usd!, 0), 6) : null,
    unpriced_providers: rows.filter((r) => r.cost_usd === null).map((r) => r.provider),
  };
}

/** How much longer the audio sent is than the audio made, summed over conditions: `speed:1.5` sends two thirds of it. */
export function lengthFactor(conditions: readonly string[]): number {
  return conditions.map((c) => parseCondition(c)).reduce((n, c) => n + (c.kind === 'speed' ? 1 / c.factor : 1), 0);
}

/** Non-speech clips (DESIGN §12.1) a provider hears and their minutes: heard once per provider, charged nothing. */
export function probeClips(body: Pick<CreateEvaluationRequest, 'probes'>): { clips: number; minutes: number } {
  const ns = body.probes?.non_speech;
  if (!ns) return { clips: 0, minutes: 0 };
  const clips = ns.clips ?? NON_SPEECH_LIMITS.clips.default;
  return { clips, minutes: (clips * (ns.seconds ?? NON_SPEECH_LIMITS.seconds.default)) / 60 };
}

/** Works out the dry run of `body` with `providers` (resolved tokens) against the service's catalogue and prices. */
export async function dryRun(client: VoxClient, body: Omit<CreateEvaluationRequest, 'providers'>, providers: string[], known: readonly ProviderView[]): Promise<DryRun> {
  if (body.speakers === undefined) throw new Error('dryRun estimates synthesised speech; a corpus has corpusDryRun');
  const texts = await evaluationTexts(client, body);
  const speakers = await speakerCount(client, body.speakers);
  const conditions = body.conditions ?? ['clean'];
  const { clips, minutes: clipMinutes } = probeClips(body);
  // Synthesised once per speaker, or once per turn of every call, and heard under every condition.
  const { calls, characters } = synthesis(body, texts, speakers);
  const minutesPerProvider = (characters / CHARACTERS_PER_SECOND / 60) * lengthFactor(conditions) + clipMinutes;
  const utterancesPerProvider = (calls ?? texts.length * speakers) * conditions.length + clips;
  const rows = providerRows(providers, known, { utterances: utterancesPerProvider, minutes: minutesPerProvider });
  const usage = await client.usage().catch(() => undefined);
  const utterances = utterancesPerProvider * providers.length;
  return {
    dry_run: true,
    texts: texts.length,
    speakers,
    ...(calls !== undefined ? { calls } : {}),
    conditions,
    providers: rows,
    utterances,
    characters,
    characters_left: usage ? Math.max(0, usage.characters_limit - usage.characters_used) : null,
    audio_minutes: round(minutesPerProvider * providers.length, 2),
    audio_minutes_estimate: AUDIO_ESTIMATE,
    ...costOf(rows),
    within_limits: utterances <= EVALUATION_LIMITS.utterances,
  };
}

/**
 * The calls of a conversation and the characters they synthesise, drawn as the service draws them
 * (`conversationCharacters`: every turn of every call, §16.1); a selection too small for a call is the
 * service's refusal, said before anything is asked of it.
 */
function conversationPlan(body: ConversationBody, o: { texts: readonly string[]; speakers: number; seed: number }): { calls: number; characters: number } {
  const options = checkConversation(body);
  // Who the speakers are does not change what is said: stand-ins of the right number.
  const speakers = Array.from({ length: o.speakers }, (_, i) => `speaker ${i}`);
  try {
    return { calls: options.calls, characters: conversationCharacters({ options, seed: o.seed, speakers, texts: o.texts }) };
  } catch (err) {
    if (err instanceof ConversationPlanError) throw usageError(err.message);
    throw err;
  }
}

/** Prints a dry run: the API-like object under --json, else a few lines and a per-provider table. */
export async function printDryRun(out: Output, d: DryRun): Promise<void> {
  if (out.json) return out.printJson(d);
  const n = (x: number) => x.toLocaleString('en-US');
  const quota = d.characters_left === null ? '' : ` (${n(d.characters_left)} left this billing period${d.characters > d.characters_left ? ': not enough' : ''})`;
  out.fields([
    [
      'utterances',
      d.calls === undefined
        ? `${n(d.utterances)} = ${d.texts} texts × ${d.speakers} speakers × ${d.conditions.length} conditions × ${d.providers.length} providers`
        : `${n(d.utterances)} = ${d.calls} calls × ${d.conditions.length} conditions × ${d.providers.length} providers (${d.texts} texts, ${d.speakers} speakers)`,
    ],
    ['characters', `${n(d.characters)}${quota}`],
    ['audio minutes', `${d.audio_minutes} sent to the providers, ${d.audio_minutes_estimate}`],
    ['cost', costText(d)],
  ]);
  await printProviderRows(out, d);
}

/** The cost line of a dry run's fields. */
export const costText = (d: { cost_usd: number | null; unpriced_providers: readonly string[] }): string =>
  d.cost_usd === null
    ? 'no provider is priced (price_per_minute_usd in the server config)'
    : `$${d.cost_usd.toFixed(2)}${d.unpriced_providers.length ? ` + unpriced: ${d.unpriced_providers.join(', ')}` : ''}`;

/** The per-provider table that ends every dry run, the limit warning and the reminder that nothing was made. */
export async function printProviderRows(out: Output, d: { providers: readonly DryRunProvider[]; within_limits: boolean }): Promise<void> {
  out.write('\n');
  await out.table(d.providers, [
    { header: 'provider', get: (r) => r.label },
    { header: 'utterances', get: (r) => r.utterances },
    { header: 'audio_min', get: (r) => r.audio_minutes },
    { header: 'usd_per_min', get: (r) => r.price_per_minute_usd },
    { header: 'cost_usd', get: (r) => (r.cost_usd === null ? null : r.cost_usd.toFixed(4)) },
  ]);
  if (!d.within_limits) out.warn(`Evaluation exceeds ${EVALUATION_LIMITS.utterances} utterances: the service would refuse it.`);
  out.info('Dry run: nothing was created.');
}
