/**
 * Executes evaluations (DESIGN §8.2) over the database queue of syntheses, as a pipeline: each text ×
 * speaker is synthesised once, every condition is derived from that audio and written to a file with a
 * fixed id, then each provider hears each conditioned audio under its own concurrency limit. A few
 * syntheses run ahead of the recognisers (`lookahead`), so the CPU-bound recogniser never waits for
 * speech. Every result is committed as it arrives; a crash loses only the requests in flight, and a
 * restart reads the conditioned audio back and asks only for the utterances not yet stored. A corpus
 * evaluation (DESIGN §10.5) takes each item's recording from the audio store instead of synthesising it.
 */
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Clock } from '../clock.js';
import type { Db } from '../storage/db.js';
import { parseCondition, type AudioCondition } from '../../shared/conditions.js';
import type { NormalizerName } from '../../shared/normalizers/index.js';
import type { SttResult } from '../../shared/schemas/stt.js';
import { applyCondition } from '../audio/conditions.js';
import { decodeWavToPcm16 } from '../audio/wav.js';
import type { SttAudio } from '../engines/stt/types.js';
import type { ConcurrencyLimit } from '../engines/stt/limit.js';
import { getAudio, insertAudio, type AudioRow } from '../storage/repositories/audio.js';
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
  listEvaluationTexts,
  markSynthesized,
  requeueProcessingSyntheses,
  storedUtteranceSlots,
  type ClaimedSynthesis,
  type EvaluationSpeakerRow,
  type UtteranceRecord,
} from '../storage/repositories/evaluations.js';
import { readAudioBytes, wavInput, writeAudioOnly, type AudioBlobStore } from '../services/audio-store.js';
import type { RefundFn } from '../jobs/queue.js';
import { createLeaseKeeper, type WorkSharing } from '../jobs/leases.js';
import { conditionedAudioId, evaluationLists } from './views.js';
import { failedResult, scoreResult, type UtteranceResult } from './scoring.js';
import { finishEvaluationNow } from './finish.js';
import { SYNTHESIS_FAILED } from './summary.js';

/** Mono PCM16 at a rate. */
export interface PcmAudio {
  pcm: Int16Array;
  sampleRate: number;
}

/** Everything the runner works with, passed in (tests and the benchmark give their own). */
export interface EvaluationRunnerDeps {
  db: Db;
  blobs: AudioBlobStore;
  clock: Clock;
  /** Synthesises a text with a catalogue speaker's voice (the TTS pool in production). */
  synthesize(speakerId: string, text: string): Promise<PcmAudio>;
  /** Calls one provider under its timeout; never throws (failures are results with an `error`). */
  transcribe(provider: string, audio: SttAudio, signal: AbortSignal): Promise<SttResult>;
  /** The concurrency limit shared by every request to `provider`'s adapter. */
  limitFor(provider: string): ConcurrencyLimit;
  refund: RefundFn;
  /** Syntheses in flight at once, each with its recognitions. */
  lookahead: number;
  /** Unexpected errors of the runner itself (database trouble); default: ignored. */
  onError?(err: unknown): void;
  /** This instance's claims: its id, the lease length, and whether peers share the queue (PostgreSQL). */
  work: WorkSharing;
}

/** The background worker of evaluations. */
export interface EvaluationRunner {
  /** Requeues what a crash left in flight, finishes evaluations that were complete, starts processing. */
  start(): Promise<void>;
  /** New work was queued: claim it now. */
  wake(): void;
  /** Stops claiming, abandons queued requests and waits for those running; unfinished work stays queued. */
  stop(): Promise<void>;
  /** Resolves when nothing is in flight nor being claimed (tests, benchmarks). */
  idle(): Promise<void>;
}

/** What the runner keeps of an evaluation while its syntheses are in flight. */
interface EvaluationContext {
  id: string;
  userId: string;
  texts: string[];
  speakers: EvaluationSpeakerRow[];
  providers: string[];
  conditions: AudioCondition[];
  normalizer: NormalizerName;
  seed: number;
  /** A corpus evaluation (DESIGN §10.5): the recording of each item, by index; nothing is synthesised. */
  recordings?: Map<number, string>;
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

/** Builds the runner (DESIGN §8.2); `start()` it once the database is migrated. */
export function createEvaluationRunner(deps: EvaluationRunnerDeps): EvaluationRunner {
  const { db } = deps;
  const active = new Set<Promise<void>>();
  const contexts = new Map<string, ContextEntry>();
  const abort = new AbortController();
  // One stop signal is handed to every queued and running request: hundreds of listeners are expected.
  setMaxListeners(0, abort.signal);
  let stopped = false;
  let started = false;
  let starting: Promise<void> | undefined;
  let idleWaiters: (() => void)[] = [];
  // One claim at a time: a second pump while one awaits the database would count the same room twice.
  let pumping: Promise<void> | undefined;
  let pumpAgain = false;
  const report = (err: unknown) => deps.onError?.(err);
  // Renews this instance's leases while it works, polls for work its peers queued, hands leases back on stop.
  const leases = createLeaseKeeper({ db, table: 'evaluation_syntheses', clock: deps.clock, work: deps.work, poll: () => pump(), onError: report });
  const now = () => deps.clock.now();

  async function load(id: string): Promise<EvaluationContext | undefined> {
    const row = await getEvaluation(db, id);
    if (!row) return undefined;
    const lists = evaluationLists(row);
    return {
      id,
      userId: row.user_id,
      texts: await listEvaluationTexts(db, id),
      speakers: await listEvaluationSpeakers(db, id),
      providers: lists.providers,
      conditions: lists.conditions.map(parseCondition),
      normalizer: row.normalizer as NormalizerName,
      seed: row.seed,
      ...(row.corpus_id !== null ? { recordings: await listCorpusItemAudio(db, id) } : {}),
    };
  }

  /** The decoded recording of a corpus item (16-bit WAV at its own rate, stored at upload). */
  async function recording(audioId: string | undefined): Promise<PcmAudio> {
    const row = audioId === undefined ? undefined : await getAudio(db, audioId);
    const bytes = row ? await readAudioBytes(deps.blobs, row) : undefined;
    if (!bytes) throw new Error('the recording is no longer stored');
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

  const running = async (id: string) => !stopped && (await evaluationStatus(db, id)) === 'processing';

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
  async function produce(ctx: EvaluationContext, claim: ClaimedSynthesis): Promise<Map<number, SttAudio>> {
    const speech = ctx.recordings
      ? await recording(ctx.recordings.get(claim.textIndex))
      : await deps.synthesize(ctx.speakers[claim.speakerIndex]!.speaker_id, ctx.texts[claim.textIndex]!);
    if (speech.pcm.length === 0) throw new Error('Synthesis produced no audio');
    const audios = new Map<number, SttAudio>();
    const rows: AudioRow[] = [];
    for (let c = 0; c < ctx.conditions.length; c++) {
      const seed = utteranceSeed(ctx.seed, claim.textIndex, claim.speakerIndex, c);
      const out = await applyCondition(speech, ctx.conditions[c]!, { seed });
      const id = conditionedAudioId(ctx.id, claim.textIndex, claim.speakerIndex, c);
      const input = wavInput(out.pcm, out.sampleRate, { id, userId: ctx.userId, kind: 'tts', now: now() });
      rows.push(await writeAudioOnly(deps.blobs, input));
      audios.set(c, { pcm: out.pcm, sampleRate: out.sampleRate, durationSeconds: input.durationSeconds, wav: Buffer.from(input.bytes) });
    }
    // The files are written above: this body only touches the database, as a re-run on PostgreSQL requires.
    await db.transaction(async () => {
      for (const row of rows) if (!(await getAudio(db, row.id))) await insertAudio(db, row);
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
  async function recognise(ctx: EvaluationContext, claim: ClaimedSynthesis, c: number, p: number, audio: SttAudio): Promise<void> {
    const provider = ctx.providers[p]!;
    const result = await deps
      .limitFor(provider)
      .run(async () => ((await running(ctx.id)) ? deps.transcribe(provider, audio, abort.signal) : undefined), abort.signal)
      .catch(() => undefined);
    if (!result || stopped) return;
    let scored: UtteranceResult;
    try {
      scored = scoreResult(ctx.texts[claim.textIndex]!, result, ctx.normalizer);
    } catch (err) {
      scored = failedResult({ code: 'upstream_error', message: `Transcript could not be scored: ${(err as Error).message}` }, result.latency_ms);
    }
    const audioId = conditionedAudioId(ctx.id, claim.textIndex, claim.speakerIndex, c);
    await insertUtterance(db, record(claim, c, p, scored, audioId));
  }

  /** A synthesis that failed: its utterances are recorded as such and its characters refunded, at once. */
  async function fail(ctx: EvaluationContext, claim: ClaimedSynthesis, missing: readonly { c: number; p: number }[], err: unknown): Promise<void> {
    const what = ctx.recordings ? 'Recording could not be read' : 'Synthesis failed';
    const message = `${what}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300)}`;
    await db.transaction(async () => {
      if (!(await finishSynthesis(db, claim, { error: message }, deps.work.owner))) return;
      for (const m of missing) await insertUtterance(db, record(claim, m.c, m.p, failedResult({ code: SYNTHESIS_FAILED, message }, null), null));
      if (!claim.synthesized) await deps.refund(db, { userId: claim.userId, period: claim.period, characters: claim.characters });
    });
  }

  async function process(claim: ClaimedSynthesis): Promise<void> {
    const entry = acquire(claim.evaluationId);
    try {
      const ctx = await entry.ctx;
      if (!ctx || !(await running(ctx.id))) return;
      const stored = await storedUtteranceSlots(db, claim, ctx.providers.length);
      const missing: { c: number; p: number }[] = [];
      for (let c = 0; c < ctx.conditions.length; c++) {
        for (let p = 0; p < ctx.providers.length; p++) if (!stored.has(c * ctx.providers.length + p)) missing.push({ c, p });
      }
      let audios: Map<number, SttAudio> | undefined;
      if (missing.length > 0) {
        try {
          if (claim.synthesized) audios = await reload(ctx, claim, new Set(missing.map((m) => m.c)));
          audios ??= await produce(ctx, claim);
        } catch (err) {
          // Shutting down (the pool closes under us): leave it `processing`; the next start requeues it.
          if (!stopped) await fail(ctx, claim, missing, err);
          return;
        }
        await Promise.all(missing.map((m) => recognise(ctx, claim, m.c, m.p, audios!.get(m.c)!)));
      }
      if (stopped) return;
      await finishSynthesis(db, claim, 'done', deps.work.owner);
    } finally {
      release(claim.evaluationId, entry);
      if (!stopped && !(await hasOpenSyntheses(db, claim.evaluationId))) await finishEvaluationNow(db, claim.evaluationId, now());
    }
  }

  function notifyIfIdle(): void {
    if (active.size > 0 || pumping) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Claims what there is room for and starts each claimed synthesis. */
  async function claimOnce(): Promise<void> {
    const room = deps.lookahead - active.size;
    if (stopped || !started || room <= 0 || !deps.work.claims) return;
    let claimed: ClaimedSynthesis[];
    try {
      claimed = await claimPendingSyntheses(db, room, now().toISOString(), leases.lease());
    } catch (err) {
      report(err);
      return;
    }
    // Stopped while claiming: the claims stay `processing` and the next start requeues them.
    if (stopped) return;
    for (const claim of claimed) {
      const task: Promise<void> = process(claim)
        .catch(report)
        .finally(() => {
          active.delete(task);
          pump();
          notifyIfIdle();
        });
      active.add(task);
    }
  }

  function pump(): void {
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = (async () => {
      do {
        pumpAgain = false;
        await claimOnce();
      } while (pumpAgain && !stopped);
    })()
      .catch(report)
      .finally(() => {
        pumping = undefined;
        notifyIfIdle();
      });
  }

  return {
    start() {
      // Shared by concurrent calls: recovery runs once, and nothing is claimed before it has requeued.
      starting ??= (async () => {
        // One instance per data dir requeues what its crash left; peers sharing the queue rely on the leases.
        if (!deps.work.shared) await requeueProcessingSyntheses(db);
        // A crash between the last result and the summary: summarise now.
        for (const id of await evaluationsReadyToFinish(db)) await finishEvaluationNow(db, id, now());
        started = true;
        leases.start();
        pump();
      })().catch((err: unknown) => {
        starting = undefined;
        throw err;
      });
      return starting;
    },
    wake: pump,
    async stop() {
      stopped = true;
      abort.abort(new Error('The server is stopping'));
      await pumping;
      await Promise.allSettled([...active]);
      // Work cut off by the shutdown goes back to the queue for a peer or the next start.
      await leases.stop();
    },
    idle() {
      if (active.size === 0 && !pumping) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
