/**
 * Evaluations on a recorded corpus (DESIGN §10.5): the corpus's utterances (or a seeded sample of them)
 * take the place of the syntheses. Nothing is synthesised and no character is charged; each utterance
 * is one queue item whose audio is the decoded recording, degraded by every condition and heard by every
 * provider. Its bootstrap block is its corpus speaker — or itself when the corpus names none.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import type { EvaluationCreated, EvaluationMode } from '../../../shared/schemas/evaluations.js';
import type { CorpusSource } from './request.js';
import type { Normalizer } from '../../../shared/normalizers/index.js';
import { whitespaceTokens } from '../../../shared/normalize.js';
import { EMPTY_REFERENCE_MESSAGE } from '../../../shared/accuracy.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import { EVALUATION_LIMITS } from '../../../shared/constants.js';
import { insertCorpusEvaluation, type CorpusItemRow } from './repository.js';
import { CONVERSATION_GROUP_BY, RECORDED_CALLS } from './conversations/create.js';
import { CONVERSATION_STREAMING_MESSAGE } from './request.js';
import { ALL_GROUPS } from './summary.js';
import { billingPeriod } from '../limits/index.js';
import { CORPUS_MESSAGES } from '../../../shared/corpus/messages.js';
import { assertActiveSubscription } from '../accounts/index.js';
import { probeClipKinds, type CheckedProbes } from './probes.js';

/** The 404 of an unknown corpus (also another user's). */
export const CORPUS_NOT_FOUND = CORPUS_MESSAGES.notFound;
/** The group of an utterance that has no value of the evaluation's `group_by`. */
export const UNKNOWN_GROUP = 'unknown';
/** `group_by` of a corpus evaluation that groups by the corpus speaker. */
export const SPEAKER_GROUP = 'speaker';

/** One corpus utterance as an evaluation needs it, in corpus order. */
export interface CorpusUtteranceForEvaluation {
  utteranceId: string;
  speaker: string | null;
  reference: string;
  metadata: Readonly<Record<string, unknown>>;
  /** The decoded recording (16-bit WAV) in the audio store. */
  audioId: string;
  /** A recorded call's STM segments (JSON `{speaker, start, end, text}[]`, DESIGN §16.5); absent for an utterance. */
  segments?: string | null;
}

/** A corpus as an evaluation needs it. */
export interface CorpusForEvaluation {
  id: string;
  name: string;
  /** `stm`: its utterances are recorded calls, scored as calls (DESIGN §16.5). */
  layout?: string;
  metadataFields: readonly string[];
  utterances: readonly CorpusUtteranceForEvaluation[];
}

/** Reads `userId`'s corpus `corpusId` with its utterances; undefined when it is absent or another user's. */
export type CorpusReader = (db: Db, corpusId: string, userId: string) => Promise<CorpusForEvaluation | undefined>;

/** The checked parts of the body shared with synthesised sources. */
export interface CheckedCommon {
  providers: string[];
  conditions: string[];
  normalizer: Normalizer;
}

/** `group_by` of a corpus evaluation: `speaker` or a metadata field; default `gender` when present, else `speaker`. */
export function corpusGroupBy(requested: string | undefined, metadataFields: readonly string[]): string {
  if (requested === undefined) return metadataFields.includes('gender') ? 'gender' : SPEAKER_GROUP;
  if (requested === SPEAKER_GROUP || metadataFields.includes(requested)) return requested;
  throw validationFailed(`Unknown group_by for this corpus: ${requested}`);
}

/** An utterance's value of `groupBy` (`unknown` when it has none). */
export function corpusGroupValue(u: CorpusUtteranceForEvaluation, groupBy: string): string {
  const raw = groupBy === SPEAKER_GROUP ? u.speaker : u.metadata[groupBy];
  const text = raw === null || raw === undefined ? '' : String(raw).trim();
  return text === '' ? UNKNOWN_GROUP : text;
}

/**
 * `size` utterances chosen by a seeded hash of their ids — the same corpus, size and seed always give the
 * same subset, whatever order the corpus lists them in — kept in corpus order. A size at least the
 * corpus's takes it whole.
 */
export function sampleUtterances<T extends { utteranceId: string }>(utterances: readonly T[], sample: { size: number; seed?: number } | undefined): T[] {
  if (!sample || sample.size >= utterances.length) return [...utterances];
  const seed = sample.seed ?? 0;
  const rank = (id: string) => createHash('sha256').update(`${seed}:${id}`).digest('hex');
  const chosen = new Set(
    utterances
      .map((u) => ({ id: u.utteranceId, rank: rank(u.utteranceId) }))
      .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0))
      .slice(0, sample.size)
      .map((r) => r.id),
  );
  return utterances.filter((u) => chosen.has(u.utteranceId));
}

/** The bootstrap block of an utterance: its corpus speaker, or the utterance alone. */
export const corpusBlock = (u: Pick<CorpusUtteranceForEvaluation, 'speaker' | 'utteranceId'>): string =>
  u.speaker !== null && u.speaker !== '' ? u.speaker : `utterance:${u.utteranceId}`;

/**
 * POST /v1/evaluations with `corpus_id`: validates, then stores the evaluation and one queue item per
 * chosen utterance in one transaction. Called once the source and the body's common parts are checked.
 */
export async function createCorpusEvaluation(
  deps: { db: Db; now: Date; corpora: CorpusReader },
  input: {
    id: string;
    userId: string;
    name: string | null;
    source: CorpusSource;
    common: CheckedCommon;
    /** The probes (DESIGN §15.5): keyterms heard on the recordings, non-speech clips after them. */
    probes?: CheckedProbes;
    /** The setup, prices and baseline recorded with it (DESIGN §11.1), as stored JSON. */
    recorded?: { setup: string; prices: string; baseline_id: string | null; mode?: EvaluationMode; pace?: number | null; probes?: string | null };
  },
): Promise<EvaluationCreated> {
  const { db, now } = deps;
  const { source, userId, common } = input;
  const corpus = await deps.corpora(db, source.corpusId, userId);
  if (!corpus) throw new DomainError('corpus_not_found', CORPUS_NOT_FOUND);
  const calls = corpus.layout === 'stm';
  // A call is heard whole, as a file: a stream of minutes measures endpointing, not who said what.
  if (calls && input.recorded?.mode === 'streaming') throw validationFailed(CONVERSATION_STREAMING_MESSAGE);
  // Recorded calls (§16.5): summaries have group `all` only, and `calls/{n}` numbers the calls in id order.
  const groupBy = calls ? CONVERSATION_GROUP_BY : corpusGroupBy(source.groupBy, corpus.metadataFields);
  const sampled = sampleUtterances(corpus.utterances, source.sample);
  const chosen = calls ? [...sampled].sort((a, b) => (a.utteranceId < b.utteranceId ? -1 : a.utteranceId > b.utteranceId ? 1 : 0)) : sampled;
  const perUtterance = common.conditions.length * common.providers.length;
  const clips = probeClipKinds(input.probes);
  const total = chosen.length * perUtterance + clips.length * common.providers.length;
  if (total > EVALUATION_LIMITS.utterances) throw validationFailed(`Evaluation exceeds ${EVALUATION_LIMITS.utterances} utterances`);
  // A reference with no word left after normalisation (only "(laughs)" under whisper-en) cannot be scored.
  for (const u of chosen) {
    if (whitespaceTokens(common.normalizer.normalize(u.reference)).length === 0) throw validationFailed(`Utterance ${u.utteranceId}: ${EMPTY_REFERENCE_MESSAGE}`);
  }
  await assertActiveSubscription(db, userId);
  const items: CorpusItemRow[] = chosen.map((u) => ({
    utteranceId: u.utteranceId,
    speaker: u.speaker,
    audioId: u.audioId,
    reference: u.reference,
    block: corpusBlock(u),
    group: calls ? ALL_GROUPS : corpusGroupValue(u, groupBy),
  }));
  await db.transaction(async () => {
    await insertCorpusEvaluation(
      db,
      {
        id: input.id,
        user_id: userId,
        name: input.name,
        total_utterances: total,
        providers: JSON.stringify(common.providers),
        conditions: JSON.stringify(common.conditions),
        group_by: groupBy,
        normalizer: common.normalizer.name,
        normalizer_version: common.normalizer.version,
        seed: source.sample?.seed ?? 0,
        // No character is reserved; the period only dates the evaluation like every other.
        period: billingPeriod(now).start,
        created_at: now.toISOString(),
        corpus_id: corpus.id,
        corpus_name: corpus.name,
        ...input.recorded,
        ...(calls ? { conversation: RECORDED_CALLS } : {}),
      },
      items,
      clips,
      calls ? chosen.map((u) => ({ utteranceId: u.utteranceId, truth: u.segments ?? '[]' })) : [],
    );
  });
  return { evaluation_id: input.id, status: 'pending', total_utterances: total, created_at: now.toISOString() };
}
