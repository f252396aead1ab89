/**
 * Evaluation syntheses (DESIGN §8.2) as a kind of background work, a pipeline: each text × speaker is
 * synthesised once, every condition is derived from that audio and written to a file with a fixed id,
 * then each provider hears each conditioned audio under its own concurrency limit. A few syntheses run
 * ahead of the recognisers (the kind's capacity), so the CPU-bound recogniser never waits for speech.
 * Every result is committed as it arrives; a crash loses only the requests in flight, and a restart
 * reads the conditioned audio back and asks only for the utterances not yet stored. A corpus evaluation
 * (DESIGN §10.5) takes each item's recording from the audio store instead of synthesising it.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import { formatCondition, parseCondition, type AudioCondition } from '../../../shared/conditions.js';
import { NON_SPEECH_LIMITS, type NonSpeechKind } from '../../../shared/non-speech.js';
import { nonSpeechClip } from '../../audio/non-speech.js';
import type { CheckedProbes } from './probes.js';
import { normalizerAt, type Normalizer } from '../../../shared/normalizers/index.js';
import type { SttResult } from '../../../shared/schemas/stt.js';
import type { StreamedResult } from '../stt/index.js';
import { applyCondition } from '../../audio/conditions.js';
import { decodeWavToPcm16, type Pcm16Audio } from '../../audio/wav.js';
import type { SttAudio } from '../../engines/stt/types.js';
import type { ConcurrencyLimit } from '../../engines/stt/limit.js';
import { getAudio, insertAudio, type AudioRow } from '../audio/index.js';
import {
  claimPendingSyntheses,
  evaluationStatus,
  evaluationsReadyToFinish,
  finishSynthesis,
  hasOpenSyntheses,
  getEvaluation,
  insertUtterance,
  listCorpusItemAudio,
  listEvaluationSpeakers,
  listEvaluationTextRows,
  markSynthesized,
  recordEventLoopLag,
  requeueProcessingSyntheses,
  storedUtteranceSlots,
  type ClaimedSynthesis,
  type EvaluationSpeakerRow,
  type UtteranceRecord,
} from './repository.js';
import { readAudioBytes, wavInput, writeAudioOnly, type AudioBlobStore } from '../audio/index.js';
import type { RefundFn } from '../limits/index.js';
import { conditionedAudioId, evaluationLists } from './views.js';
import { failedResult, scoreResult, type UtteranceResult } from './scoring.js';
import { finishEvaluationNow } from './finish.js';
import { SYNTHESIS_FAILED } from './summary.js';
import { DomainError } from '../../../shared/errors.js';
import { isConnectionFailure } from '../../storage/database-availability.js';
import type { WorkContext, WorkFailure, WorkKind } from '../../work/kind.js';
import { createEventLoopLagMonitors } from '../../work/event-loop-lag.js';

/**
 * A request that could not be made counts as not heard — unless the database was away while checking the
 * evaluation still runs: that is thrown, so the claim runs again once it is back (DESIGN §14.10) instead
 * of ending `done` with utterances missing.
 */
const unlessDatabaseAway = (err: unknown): undefined => {
  if (isConnectionFailure(err)) throw err;
  return undefined;
};

/** Everything the kind works with, passed in (tests and the benchmark give their own). */
export interface EvaluationSynthesesDeps {
  db: Db;
  blobs: AudioBlobStore;
  /** Synthesises a text with a catalogue speaker's voice (the TTS pool in production). */
  synthesize(speakerId: string, text: string): Promise<Pcm16Audio>;
  /** Calls one provider under its timeout; never throws (failures are results with an `error`). */
  transcribe(provider: string, audio: SttAudio, signal: AbortSignal, keyterms?: readonly string[]): Promise<SttResult>;
  /** Whether a provider's adapter has a boosting parameter (the keyterm probe's second pass, DESIGN §12.4). */
  keytermsSupported?(provider: string): boolean;
  /** Streams the audio to one provider at `pace` and measures it (DESIGN §13.2); never throws. Absent: no streaming evaluations. */
  stream?(provider: string, audio: SttAudio, pace: number, signal: AbortSignal): Promise<StreamedResult>;
  /** The concurrency limit shared by every request to `provider`'s adapter. */
  limitFor(provider: string): ConcurrencyLimit;
  refund: RefundFn;
  /** Syntheses in flight at once, each with its recognitions. */
  capacity: number;
}

/** What the runner keeps of an evaluation while its syntheses are in flight. */
interface EvaluationContext {
  id: string;
  userId: string;
  texts: string[];
  speakers: EvaluationSpeakerRow[];
  providers: string[];
  conditions: AudioCondition[];
  /** At the version the evaluation recorded (DESIGN §15.6): one started before an upgrade keeps it. */
  normalizer: Normalizer;
  seed: number;
  /** A corpus evaluation (DESIGN §10.5): the recording of each item, by index; nothing is synthesised. */
  recordings?: Map<number, string>;
  /** A streaming evaluation (DESIGN §13.2): each provider hears the audio as a stream at this pace. */
  pace?: number;
  /** Text index → the non-speech clip it is (DESIGN §12.1); the other texts are speech. */
  clips: Map<number, NonSpeechKind>;
  /** The evaluation's probes, as checked at creation. */
  probes?: CheckedProbes;
}

/** A context shared by the syntheses of one evaluation in flight; loaded once, dropped with the last user. */
interface ContextEntry {
  ctx: Promise<EvaluationContext | undefined>;
  users: number;
}

/** The seed of one conditioned audio, derived from the evaluation's seed and the utterance's place. */
export function utteranceSeed(seed: number, t: number, s: number, c: number): number {
  return createHash('sha256').update(`${seed}:${t}:${s}:${c}`).digest().readUInt32LE(0);
}

/** A claimed synthesis made ready: its evaluation, the utterances still missing and their audio. */
export interface PreparedSynthesis {
  ctx: EvaluationContext;
  missing: { c: number; p: number }[];
  audios: Map<number, SttAudio>;
}

/** The kind of `evaluation_syntheses` (DESIGN §8.2); run it with `createWorkLoop`. */
export function evaluationSynthesesKind(deps: EvaluationSynthesesDeps): WorkKind<ClaimedSynthesis, PreparedSynthesis | undefined> {
  const { db } = deps;
  const contexts = new Map<string, ContextEntry>();
  // The event loop's delay while each evaluation's claims run here, recorded when its work ends (§15.4).
  const lag = createEventLoopLagMonitors();

  async function load(id: string): Promise<EvaluationContext | undefined> {
    const row = await getEvaluation(db, id);
    if (!row) return undefined;
    const lists = evaluationLists(row);
    const textRows = await listEvaluationTextRows(db, id);
    return {
      id,
      userId: row.user_id,
      texts: textRows.map((t) => t.text),
      clips: new Map(textRows.flatMap((t, i) => (t.kind ? [[i, t.kind as NonSpeechKind] as const] : []))),
      ...(row.probes ? { probes: JSON.parse(row.probes) as CheckedProbes } : {}),
      speakers: await listEvaluationSpeakers(db, id),
      providers: lists.providers,
      conditions: lists.conditions.map(parseCondition),
      normalizer: normalizerAt(row.normalizer, row.normalizer_version),
      seed: row.seed,
      ...(row.corpus_id !== null ? { recordings: await listCorpusItemAudio(db, id) } : {}),
      ...(row.mode === 'streaming' ? { pace: row.pace === null ? 1 : Number(row.pace) } : {}),
    };
  }

  /** The decoded recording of a corpus item (16-bit WAV at its own rate, stored at upload). */
  async function recording(audioId: string | undefined): Promise<Pcm16Audio> {
    const row = audioId === undefined ? undefined : await getAudio(db, audioId);
    const bytes = row ? await readAudioBytes(deps.blobs, row) : undefined;
    // Its own message on the item's utterances (a DomainError keeps it), not "Synthesis failed".
    if (!bytes) throw new DomainError('audio_not_found', 'Recording could not be read: it is no longer stored');
    return decodeWavToPcm16(bytes);
  }

  /** The evaluation's context; the entry is taken synchronously, so concurrent syntheses share one load. */
  function acquire(id: string): ContextEntry {
    let entry = contexts.get(id);
    if (!entry) contexts.set(id, (entry = { ctx: load(id), users: 0 }));
    entry.users++;
    return entry;
  }

  function release(id: string, entry: ContextEntry): void {
    if (--entry.users === 0 && contexts.get(id) === entry) contexts.delete(id);
  }

  /** The conditions a claim is heard under: all of them, or for a non-speech clip only `clean` (DESIGN §12.1). */
  const conditionsOf = (ctx: EvaluationContext, claim: ClaimedSynthesis): number[] => {
    if (ctx.clips.has(claim.textIndex)) return [ctx.conditions.findIndex((c) => formatCondition(c) === 'clean')].filter((c) => c >= 0);
    return ctx.conditions.map((_c, i) => i);
  };

  const running = async (id: string, work: WorkContext) => !work.stopping() && (await evaluationStatus(db, id)) === 'processing';

  /** The utterance row of a result: key, audio and the result columns. */
  const record = (claim: ClaimedSynthesis, c: number, p: number, result: UtteranceResult, audioId: string | null): UtteranceRecord => ({
    evaluation_id: claim.evaluationId,
    text_index: claim.textIndex,
    speaker_index: claim.speakerIndex,
    condition_index: c,
    provider_index: p,
    audio_id: audioId,
    ...result,
  });

  /** Synthesises once, derives and stores every condition's audio, then marks the synthesis synthesised. */
  async function produce(ctx: EvaluationContext, claim: ClaimedSynthesis, work: WorkContext): Promise<Map<number, SttAudio>> {
    const clip = ctx.clips.get(claim.textIndex);
    const speech = clip
      ? nonSpeechClip(clip, ctx.probes?.non_speech?.seconds ?? NON_SPEECH_LIMITS.seconds.default, utteranceSeed(ctx.seed, claim.textIndex, 0, 0))
      : ctx.recordings
        ? await recording(ctx.recordings.get(claim.textIndex))
        : await deps.synthesize(ctx.speakers[claim.speakerIndex]!.speaker_id, ctx.texts[claim.textIndex]!);
    if (speech.pcm.length === 0) throw new Error('Synthesis produced no audio');
    const audios = new Map<number, SttAudio>();
    const rows: AudioRow[] = [];
    for (const c of conditionsOf(ctx, claim)) {
      const seed = utteranceSeed(ctx.seed, claim.textIndex, claim.speakerIndex, c);
      const out = await applyCondition(speech, ctx.conditions[c]!, { seed });
      const id = conditionedAudioId(ctx.id, claim.textIndex, claim.speakerIndex, c);
      const input = wavInput(out.pcm, out.sampleRate, { id, userId: ctx.userId, kind: 'tts', now: work.now() });
      rows.push(await writeAudioOnly(deps.blobs, input));
      audios.set(c, { pcm: out.pcm, sampleRate: out.sampleRate, durationSeconds: input.durationSeconds, wav: Buffer.from(input.bytes) });
    }
    // The files are written above: this body only touches the database, as a re-run on PostgreSQL requires.
    // A retried synthesis (the database was away) or a peer's takeover may have recorded a row already.
    await db.transaction(async () => {
      for (const row of rows) await insertAudio(db, row, { ifAbsent: true });
      await markSynthesized(db, claim);
    });
    return audios;
  }

  /** The stored conditioned audio of a resumed synthesis, or undefined when a file is missing. */
  async function reload(ctx: EvaluationContext, claim: ClaimedSynthesis, conditions: Set<number>): Promise<Map<number, SttAudio> | undefined> {
    const audios = new Map<number, SttAudio>();
    for (const c of conditions) {
      const row = await getAudio(db, conditionedAudioId(ctx.id, claim.textIndex, claim.speakerIndex, c));
      const bytes = row ? await readAudioBytes(deps.blobs, row).catch(() => undefined) : undefined;
      if (!row || !bytes) return undefined;
      let decoded;
      try {
        decoded = decodeWavToPcm16(bytes);
      } catch {
        return undefined; // damaged on disk: synthesise again (same ids, same files)
      }
      audios.set(c, { pcm: decoded.pcm, sampleRate: decoded.sampleRate, durationSeconds: row.duration_seconds, wav: bytes });
    }
    return audios;
  }

  /** One provider on one conditioned audio, scored and committed; nothing is stored once stopped or cancelled. */
  async function recognise(ctx: EvaluationContext, claim: ClaimedSynthesis, c: number, p: number, audio: SttAudio, work: WorkContext): Promise<void> {
    const provider = ctx.providers[p]!;
    if (ctx.clips.has(claim.textIndex)) return recogniseClip(ctx, claim, c, p, audio, work);
    const hear = (): Promise<SttResult | StreamedResult> => {
      if (ctx.pace === undefined) return deps.transcribe(provider, audio, work.signal);
      if (!deps.stream) throw new Error('This runner was built without streaming');
      return deps.stream(provider, audio, ctx.pace, work.signal);
    };
    const result = await deps
      .limitFor(provider)
      .run(async () => ((await running(ctx.id, work)) ? hear() : undefined), work.signal)
      .catch(unlessDatabaseAway);
    if (!result || work.stopping()) return;
    let scored: UtteranceResult;
    try {
      scored = scoreResult(ctx.texts[claim.textIndex]!, result, ctx.normalizer);
    } catch (err) {
      scored = failedResult({ code: 'upstream_error', message: `Transcript could not be scored: ${(err as Error).message}` }, result.latency_ms);
    }
    if ('final_latency_ms' in result) {
      scored = { ...scored, first_partial_ms: result.first_partial_ms, final_latency_ms: result.final_latency_ms, revisions: result.revisions, early_words: result.early_words };
    }
    // The keyterm probe (DESIGN §12.4): the same audio again, with the vendor's own boosting.
    const terms = ctx.probes?.keyterms?.terms;
    if (terms && deps.keytermsSupported?.(provider)) {
      const boosted = await deps
        .limitFor(provider)
        .run(async () => ((await running(ctx.id, work)) ? deps.transcribe(provider, audio, work.signal, terms) : undefined), work.signal)
        .catch(unlessDatabaseAway);
      if (!boosted || work.stopping()) return;
      scored = { ...scored, boosted_transcript: boosted.transcript, boosted_error: boosted.transcript === null ? (boosted.error?.message ?? 'No transcript') : null };
    }
    const audioId = conditionedAudioId(ctx.id, claim.textIndex, claim.speakerIndex, c);
    await insertUtterance(db, record(claim, c, p, scored, audioId));
  }

  /**
   * A non-speech clip heard by one provider (DESIGN §12.1): its transcript kept as heard — any word is a
   * hallucination, counted at the summary — never scored against the empty reference, never boosted.
   */
  async function recogniseClip(ctx: EvaluationContext, claim: ClaimedSynthesis, c: number, p: number, audio: SttAudio, work: WorkContext): Promise<void> {
    const provider = ctx.providers[p]!;
    const result = await deps
      .limitFor(provider)
      .run(async () => {
        if (!(await running(ctx.id, work))) return undefined;
        // A streaming evaluation streams its clips too: silence is where endpointing hallucinates most.
        return ctx.pace !== undefined && deps.stream ? deps.stream(provider, audio, ctx.pace, work.signal) : deps.transcribe(provider, audio, work.signal);
      }, work.signal)
      .catch(unlessDatabaseAway);
    if (!result || work.stopping()) return;
    const heard: UtteranceResult =
      result.transcript === null
        ? failedResult(result.error ?? { code: 'upstream_error', message: 'No transcript' }, result.latency_ms)
        : { ...failedResult({ code: '', message: '' }, result.latency_ms), transcript: result.transcript, error_code: null, error_message: null };
    await insertUtterance(db, record(claim, c, p, heard, conditionedAudioId(ctx.id, claim.textIndex, claim.speakerIndex, c)));
  }

  /** The utterances of a claim not stored yet (a resumed synthesis has some). */
  async function missingOf(ctx: EvaluationContext, claim: ClaimedSynthesis): Promise<{ c: number; p: number }[]> {
    const stored = await storedUtteranceSlots(db, claim, ctx.providers.length);
    const missing: { c: number; p: number }[] = [];
    for (const c of conditionsOf(ctx, claim)) {
      for (let p = 0; p < ctx.providers.length; p++) if (!stored.has(c * ctx.providers.length + p)) missing.push({ c, p });
    }
    return missing;
  }

  // What `fail` needs of a claim whose audio could not be made: known once the claim is prepared.
  const failing = new Map<ClaimedSynthesis, { ctx: EvaluationContext; missing: { c: number; p: number }[] }>();

  return {
    table: 'evaluation_syntheses',
    capacity: deps.capacity,
    failure: { code: SYNTHESIS_FAILED, prefix: 'Synthesis failed' },
    async recover() {
      await requeueProcessingSyntheses(db);
    },
    async resume(work) {
      // A crash between the last result and the summary: summarise now.
      for (const id of await evaluationsReadyToFinish(db)) await finishEvaluationNow(db, id, work.now());
    },
    claim: (limit, now, lease, opts) => claimPendingSyntheses(db, limit, now.toISOString(), lease, opts),
    previousOwner: (claim) => claim.previousOwner,
    logFields: (claim) => ({ evaluation_id: claim.evaluationId, index: claim.textIndex, speaker_index: claim.speakerIndex }),

    /** Loads the evaluation, finds the missing utterances and makes (or reads back) their audio. */
    async perform(claim, work) {
      // Taken synchronously and released in `settle`: concurrent syntheses of one evaluation share a load.
      const entry = acquire(claim.evaluationId);
      lag.begin(claim.evaluationId);
      const ctx = await entry.ctx;
      if (!ctx || !(await running(ctx.id, work))) return undefined;
      const missing = await missingOf(ctx, claim);
      if (missing.length === 0) return { ctx, missing, audios: new Map() };
      failing.set(claim, { ctx, missing });
      let audios: Map<number, SttAudio> | undefined;
      if (claim.synthesized) audios = await reload(ctx, claim, new Set(missing.map((m) => m.c)));
      audios ??= await produce(ctx, claim, work);
      // Kept until `settle`: a database error while committing the results fails the claim too.
      return { ctx, missing, audios };
    },

    /** Every provider hears every missing conditioned audio; the synthesis is done unless the loop stopped. */
    async complete(claim, prepared, work) {
      if (!prepared) return;
      const { ctx, missing, audios } = prepared;
      await Promise.all(missing.map((m) => recognise(ctx, claim, m.c, m.p, audios.get(m.c)!, work)));
      if (work.stopping()) return;
      await finishSynthesis(db, claim, 'done', work.owner);
    },

    /** A synthesis that failed: its utterances are recorded as such and its characters refunded, at once. */
    async fail(claim, failure: WorkFailure, work) {
      const known = failing.get(claim);
      // Failed before the utterances were known (the database, not the synthesis): leave it leased.
      if (!known) throw new Error(`Synthesis ${claim.evaluationId}/${claim.textIndex}/${claim.speakerIndex} could not be prepared: ${failure.message}`);
      const { message } = failure;
      await db.transaction(async () => {
        if (!(await finishSynthesis(db, claim, { error: message }, work.owner))) return;
        for (const m of known.missing) await insertUtterance(db, record(claim, m.c, m.p, failedResult({ code: SYNTHESIS_FAILED, message }, null), null));
        if (!claim.synthesized) await deps.refund(db, { userId: claim.userId, period: claim.period, characters: claim.characters });
      });
    },

    /** Drops the evaluation's context with its last claim; ends the evaluation, with the event-loop lag it saw, when nothing is left open. */
    async settle(claim, work) {
      failing.delete(claim);
      const entry = contexts.get(claim.evaluationId);
      if (entry) release(claim.evaluationId, entry);
      lag.end(claim.evaluationId);
      if (work.stopping() || (await hasOpenSyntheses(db, claim.evaluationId))) return;
      // Only the settle that takes the measurement writes it: a concurrent one finds nothing to write.
      const measured = lag.take(claim.evaluationId);
      if (measured) await recordEventLoopLag(db, claim.evaluationId, measured);
      await finishEvaluationNow(db, claim.evaluationId, work.now());
    },
  };
}
