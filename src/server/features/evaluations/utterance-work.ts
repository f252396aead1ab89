/**
 * Evaluation syntheses (DESIGN §8.2) as a kind of background work, a pipeline: each text × speaker is
 * synthesised once, every condition is derived from that audio and written to a file with a fixed id,
 * then each provider hears each conditioned audio under its own concurrency limit. A few syntheses run
 * ahead of the recognisers (the kind's capacity), so the CPU-bound recogniser never waits for speech.
 * Every result is committed as it arrives; a crash loses only the requests in flight, and a restart
 * reads the conditioned audio back and asks only for the utterances not yet stored. A corpus evaluation
 * (DESIGN §10.5) takes each item's recording from the audio store instead of synthesising it.
 */
import type { Db } from '../../storage/db.js';
import { formatCondition } from '../../../shared/conditions.js';
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
  getCall,
  hasOpenSyntheses,
  insertUtterance,
  markSynthesized,
  recordCallTruth,
  recordEventLoopLag,
  requeueProcessingSyntheses,
  storedUtteranceSlots,
  type ClaimedSynthesis,
  type UtteranceRecord,
} from './repository.js';
import { readAudioBytes, wavInput, writeAudioOnly, type AudioBlobStore } from '../audio/index.js';
import type { RefundFn } from '../limits/index.js';
import { conditionedAudioId } from './views.js';
import { failedResult, scoreResult, type UtteranceResult } from './scoring.js';
import { finishEvaluationNow } from './finish.js';
import { SYNTHESIS_FAILED } from './summary.js';
import { isConnectionFailure } from '../../storage/database-availability.js';
import type { WorkContext, WorkFailure, WorkKind } from '../../work/kind.js';
import { createEventLoopLagMonitors } from '../../work/event-loop-lag.js';
import { loadEvaluationContext, type EvaluationContext } from './utterance-context.js';
import { speechOf, utteranceSeed } from './speech-sources.js';
import { EXTRA_PASSES, hearingOf, withStreamingMeasures, type Recognisers } from './hearing.js';
import { parseTruth, scoreCallResult } from './conversations/score-call.js';
import type { ReferenceTurn } from '../../../shared/conversations/index.js';

export { utteranceSeed };

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
export interface EvaluationSynthesesDeps extends Recognisers {
  db: Db;
  blobs: AudioBlobStore;
  /** Synthesises a text with a catalogue speaker's voice (the TTS pool in production). */
  synthesize(speakerId: string, text: string): Promise<Pcm16Audio>;
  /** The concurrency limit shared by every request to `provider`'s adapter. */
  limitFor(provider: string): ConcurrencyLimit;
  refund: RefundFn;
  /** Syntheses in flight at once, each with its recognitions. */
  capacity: number;
}

/** A context shared by the syntheses of one evaluation in flight; loaded once, dropped with the last user. */
interface ContextEntry {
  ctx: Promise<EvaluationContext | undefined>;
  users: number;
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

  /** The evaluation's context; the entry is taken synchronously, so concurrent syntheses share one load. */
  function acquire(id: string): ContextEntry {
    let entry = contexts.get(id);
    if (!entry) contexts.set(id, (entry = { ctx: loadEvaluationContext(db, id), users: 0 }));
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
    const speech = await speechOf(deps, ctx, claim);
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
      // A call's truth (DESIGN §16.2) is kept with its audio: a resumed call is scored against it.
      if (speech.truth) await recordCallTruth(db, ctx.id, claim.textIndex, JSON.stringify(speech.truth));
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

  /** The truth of a call, stored when it was built (in the same transaction as its audio). */
  async function callTruth(claim: ClaimedSynthesis): Promise<ReferenceTurn[]> {
    const call = await getCall(db, claim.evaluationId, claim.textIndex);
    if (!call?.truth) throw new Error('the call has no stored truth');
    return parseTruth(call.truth);
  }

  /** One provider on one conditioned audio, scored and committed; nothing is stored once stopped or cancelled. */
  async function recognise(ctx: EvaluationContext, claim: ClaimedSynthesis, c: number, p: number, audio: SttAudio, work: WorkContext): Promise<void> {
    const provider = ctx.providers[p]!;
    if (ctx.clips.has(claim.textIndex)) return recogniseClip(ctx, claim, c, p, audio, work);
    const hear = hearingOf(deps, ctx);
    const result = await deps
      .limitFor(provider)
      .run(async () => ((await running(ctx.id, work)) ? hear(provider, audio, work.signal) : undefined), work.signal)
      .catch(unlessDatabaseAway);
    if (!result || work.stopping()) return;
    let scored: UtteranceResult;
    try {
      scored = ctx.calls
        ? scoreCallResult(await callTruth(claim), ctx.texts[claim.textIndex]!, result, ctx.normalizer)
        : scoreResult(ctx.texts[claim.textIndex]!, result, ctx.normalizer);
    } catch (err) {
      scored = failedResult({ code: 'upstream_error', message: `Transcript could not be scored: ${(err as Error).message}` }, result.latency_ms);
    }
    scored = withStreamingMeasures(scored, result);
    for (const pass of EXTRA_PASSES.filter((x) => x.applies(deps, ctx, provider))) {
      const added = await deps
        .limitFor(provider)
        .run(async () => ((await running(ctx.id, work)) ? pass.run(deps, ctx, provider, audio, work.signal) : undefined), work.signal)
        .catch(unlessDatabaseAway);
      if (!added || work.stopping()) return;
      scored = { ...scored, ...added };
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
        return hearingOf(deps, ctx)(provider, audio, work.signal);
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
