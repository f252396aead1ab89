/**
 * The background work of the service, wired from the runtime: one claim loop (loop.ts) per kind of work —
 * batch items and evaluation syntheses today. A new kind is a `WorkKind` (kind.ts) and a line here.
 */
import { availableParallelism } from 'node:os';
import type { Clock } from './clock.js';
import { ConcurrencyLimit } from './engines/stt/limit.js';
import type { SttAdapter } from './engines/stt/types.js';
import type { SttRegistry } from './engines/stt/registry.js';
import type { TtsPool } from './engines/tts/types.js';
import type { Logger } from './logger.js';
import type { Db } from './storage/db.js';
import type { AudioBlobStore } from './storage/blobs/index.js';
import { refundCharacters } from './features/limits/quota.js';
import { renderSpeech, speakerVoice } from './features/synthesis/synthesis.js';
import { runProvider } from './features/stt/transcription.js';
import { streamProvider } from './features/stt/stt-streaming.js';
import type { FrameScheduler } from './engines/stt/streaming/scheduler.js';
import type { StreamLimits } from './engines/stt/streaming/bounds.js';
import { batchItemsKind, renderItemWith } from './features/jobs/batch-items-work.js';
import { listCorpusUploadPrefixes } from './features/corpora/repository.js';
import { evaluationSynthesesKind } from './features/evaluations/utterance-work.js';
import type { WorkSharing } from './work/leases.js';
import { createWorkLoop, type WorkLoop, type WorkLoopDeps } from './work/loop.js';
import type { DatabaseAvailability } from './storage/database-availability.js';
import type { Metrics } from './features/ops/metrics.js';

export type { WorkLoop } from './work/loop.js';
export type { WorkSharing } from './work/leases.js';

/** What background work uses of the runtime, and nothing more. */
export interface WorkWiring {
  db: Db;
  /** Where audio bytes go (the data dir's folder, the database, or S3). */
  blobs: AudioBlobStore;
  clock: Clock;
  /** TTS workers (default: one per core): sets how many claims run at once. */
  ttsWorkers: number | undefined;
  /** The TTS pool, read per claim (a test may swap the runtime's pool). */
  tts(): TtsPool;
  logger: Logger;
  /** This instance's part in the shared work queues. */
  work: WorkSharing;
  /** Tells a lost database apart: an outage is logged once by it, not once per poll (DESIGN §14.3). */
  database?: DatabaseAvailability;
  /** `voxctl_work_items_total{kind,outcome}` (DESIGN §14.4), `voxctl_lease_takeovers_total{kind}` (§14.11). */
  metrics?: Pick<Metrics, 'workItem' | 'leaseTakeovers'>;
}

/** The loop's collaborators for one kind: its errors (an outage said once) and its outcomes counted. */
function loopDeps(w: WorkWiring, kind: string, what: string): WorkLoopDeps {
  return {
    db: w.db,
    clock: w.clock,
    work: w.work,
    onError: (err) => {
      if (w.database?.report(err)) return;
      w.logger.error({ err }, what);
    },
    onOutcome: (outcome) => w.metrics?.workItem(kind, outcome),
    // DESIGN §14.5: takeovers and hand-backs leave a trace an operator can find (`event`).
    onLease: (event, fields) => {
      if (event === 'lease_takeover') w.metrics?.leaseTakeovers(kind, fields.count);
      w.logger.info(
        { event, kind, ...fields },
        event === 'lease_takeover' ? `took over ${fields.count} ${kind} item(s) of a dead or stalled instance` : `handed ${fields.count} ${kind} item(s) back to the queue`,
      );
    },
    // DESIGN §14.10: the cause of an internal failure is here, under the id its message names — never on the item.
    onInternalFailure: (fields, err, requestId) =>
      w.logger.error(
        { event: 'work_item_failed', request_id: requestId, kind, ...fields, err: { message: err instanceof Error ? err.message : String(err), code: (err as { code?: unknown }).code } },
        `a ${kind} failed on a database error`,
      ),
  };
}

/** Builds the batch-items loop; the composition root starts it and stops it on close. */
export function createBatchRunner(w: WorkWiring): WorkLoop {
  const workers = w.ttsWorkers ?? availableParallelism();
  const kind = batchItemsKind({
    db: w.db,
    blobs: w.blobs,
    // A corpus upload's blobs are its own until it commits; the corpus recovery judges them.
    pendingBlobs: listCorpusUploadPrefixes,
    clock: w.clock,
    capacity: Math.max(2, workers * 2),
    render: renderItemWith(w.db, w.tts),
    refund: refundCharacters,
  });
  return createWorkLoop(kind, loopDeps(w, 'batch_item', 'voxctl job runner'));
}

/**
 * Requests in flight at once to one hosted vendor adapter: enough to hide network latency, few enough
 * to stay under the free tiers' concurrency caps (answers of `rate_limited` are recorded, not retried).
 */
export const VENDOR_CONCURRENCY = 4;

/**
 * The concurrency limit of each adapter, shared by every provider token bound to it: PocketSphinx is
 * CPU-bound, so never more recognisers than cores (nor than its configured `max_concurrent`).
 */
export function adapterLimits(options: { cores: number; sphinxMax?: number }): (adapter: SttAdapter | undefined) => ConcurrencyLimit {
  const limits = new Map<SttAdapter | undefined, ConcurrencyLimit>();
  return (adapter) => {
    let limit = limits.get(adapter);
    if (!limit) {
      const max = adapter?.adapter === 'local-sphinx' ? Math.min(options.cores, options.sphinxMax ?? options.cores) : VENDOR_CONCURRENCY;
      limits.set(adapter, (limit = new ConcurrencyLimit(max)));
    }
    return limit;
  };
}

/** What the evaluation loop uses of the runtime: the batch loop's collaborators plus the STT providers. */
export interface EvaluationWorkWiring extends WorkWiring {
  stt: SttRegistry;
  /** `max_concurrent` of local-sphinx in the server config. */
  sphinxMax: number | undefined;
  /** The process's one frame pacer (streaming evaluations, DESIGN §13.2). */
  streamScheduler: FrameScheduler;
  /** The bounds of streams (DESIGN §17.5), read at each utterance: its deadline applies to evaluations too. */
  streamLimits: StreamLimits;
}

/** Builds the evaluation loop over its queue of syntheses; the composition root starts it and stops it on close. */
export function createEvaluationRunner(w: EvaluationWorkWiring): WorkLoop {
  const workers = w.ttsWorkers ?? availableParallelism();
  const limitOf = adapterLimits({ cores: availableParallelism(), sphinxMax: w.sphinxMax });
  const kind = evaluationSynthesesKind({
    db: w.db,
    blobs: w.blobs,
    // A few syntheses ahead of the recognisers keep them busy while the next speech is made.
    capacity: Math.max(4, workers * 3),
    synthesize: async (speakerId, text) => renderSpeech(w.tts(), { text, voice: await speakerVoice(w.db, speakerId) }),
    transcribe: (provider, audio, signal, keyterms, options) =>
      runProvider({ registry: w.stt, signal, logError: (err) => w.logger.error({ err, provider }, 'voxctl evaluation') }, provider, audio, undefined, { keyterms, ...options }),
    keytermsSupported: (provider) => Boolean(w.stt.get(provider)?.adapter.supportsKeyterms),
    stream: (provider, audio, pace, signal) => streamProvider({ registry: w.stt, scheduler: w.streamScheduler, signal, deadline: w.streamLimits.deadline }, provider, audio, pace),
    limitFor: (provider) => limitOf(w.stt.get(provider)?.adapter),
    refund: refundCharacters,
  });
  return createWorkLoop(kind, loopDeps(w, 'evaluation_synthesis', 'voxctl evaluation runner'));
}
