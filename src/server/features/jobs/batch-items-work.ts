/**
 * Batch items (DESIGN §4.8, §4.9) as a kind of background work: each `job_items` row is synthesised into
 * one file with a fixed id, recorded with the item in one transaction, or failed with its characters
 * refunded in the same transaction.
 */
import type { Db } from '../../storage/db.js';
import type { TtsPool } from '../../engines/tts/types.js';
import type { Pcm16Audio } from '../../audio/wav.js';
import { insertAudio, type AudioRow } from '../audio/index.js';
import { claimPendingItems, finishItem, requeueProcessingItems, type ClaimedItem } from './repository.js';
import { recoverAudioStore, wavInput, writeAudioOnly, type AudioBlobStore, type PendingBlobs } from '../audio/index.js';
import { renderSpeech, speakerVoice } from '../synthesis/index.js';
import type { RefundFn } from '../limits/index.js';
import type { Lease } from '../../storage/repositories/leases.js';
import type { Clock } from '../../clock.js';
import type { WorkKind } from '../../work/kind.js';

/**
 * The audio id of a job item, derived from the job and index: a re-run after a crash writes the very
 * same file name, so an item can never end up with two files.
 */
export const itemAudioId = (jobId: string, idx: number): string => `aud_${jobId.replace(/^job_/, '')}_${idx}`;

/**
 * Start-up recovery of the one instance of a data dir (DESIGN §4.9): items a crash left `processing` are
 * queued again, half-written audio and audio no row records are removed. Instances sharing a PostgreSQL
 * never do this — their peers' items are `processing` too; expired leases bring a dead peer's back.
 */
export async function recoverQueue(db: Db, blobs: AudioBlobStore, pending: PendingBlobs): Promise<{ requeued: number; temp: number; orphans: number }> {
  const requeued = await db.transaction(() => requeueProcessingItems(db));
  // Far in the future: every unrecorded blob is debris, nothing else writes while the service starts.
  return { requeued, ...(await recoverAudioStore(db, blobs, { orphansBefore: new Date(8.64e15), pending })) };
}

/**
 * Takes up to `limit` claimable items under `lease` — a dead or stalled peer's first (unless `takeover` is
 * false), then pending ones FIFO — and marks them `processing`, atomically.
 */
export async function claimItems(db: Db, limit: number, now: Date, lease: Lease, opts: { takeover?: boolean } = {}): Promise<ClaimedItem[]> {
  if (limit <= 0) return [];
  // READ COMMITTED: SKIP LOCKED passes over rows a peer is claiming instead of failing the transaction.
  return db.transaction(() => claimPendingItems(db, limit, now.toISOString(), lease, opts), { isolation: 'read committed' });
}

/** Thrown inside a transaction to undo it: the lease was lost to another instance. */
class LeaseLost extends Error {}

/**
 * Records the item's audio row and marks it `success` in one transaction (the blob is already stored).
 * When another instance took the item over meanwhile, nothing is recorded: it records its own (same id).
 */
export async function completeItem(db: Db, item: ClaimedItem, audio: AudioRow, now: Date, owner: string): Promise<boolean> {
  try {
    await db.transaction(async () => {
      await insertAudio(db, audio, { ifAbsent: true });
      if (!(await finishItem(db, { jobId: item.job_id, idx: item.idx, audioId: audio.id, now: now.toISOString(), owner }))) throw new LeaseLost();
    });
    return true;
  } catch (err) {
    if (err instanceof LeaseLost) return false;
    throw err;
  }
}

/** Marks the item `failed` with `error` and refunds its characters in the same transaction — once, by the lease holder. */
export async function failItem(db: Db, item: ClaimedItem, error: string, now: Date, refund: RefundFn, owner: string): Promise<boolean> {
  return db.transaction(async () => {
    if (!(await finishItem(db, { jobId: item.job_id, idx: item.idx, error, now: now.toISOString(), owner }))) return false;
    await refund(db, { userId: item.user_id, period: item.period, characters: item.characters });
    return true;
  });
}

/** Synthesises one item: resolves the speaker's voice, runs the engine, resamples to `sampleRate` when set. */
export type RenderItem = (item: { speakerId: string; text: string; sampleRate: number | null }) => Promise<Pcm16Audio>;

/** The speaker's voice through the pool (production's `RenderItem`); an unknown speaker is `speaker_not_found`. */
export function renderItemWith(db: Db, tts: () => TtsPool): RenderItem {
  return async (item) => renderSpeech(tts(), { text: item.text, voice: await speakerVoice(db, item.speakerId), sampleRate: item.sampleRate });
}

/** Collaborators of the batch-items kind (tests give their own `render`). */
export interface BatchItemsDeps {
  db: Db;
  blobs: AudioBlobStore;
  /** Blobs other features own before a row records them: the start-up sweep keeps them. */
  pendingBlobs: PendingBlobs;
  clock: Clock;
  render: RenderItem;
  refund: RefundFn;
  /** Items in flight at once; about twice the pool's workers keeps every worker busy. */
  capacity: number;
}

/** The kind of `job_items`: synthesise, store the file, record it with the item (or fail and refund). */
export function batchItemsKind(deps: BatchItemsDeps): WorkKind<ClaimedItem, AudioRow> {
  const { db } = deps;
  return {
    table: 'job_items',
    capacity: deps.capacity,
    failure: { code: 'synthesis_failed', prefix: 'Synthesis failed' },
    async recover() {
      await recoverQueue(db, deps.blobs, deps.pendingBlobs);
    },
    previousOwner: (item) => item.lease_owner,
    claim: (limit, now, lease, opts) => claimItems(db, limit, now, lease, opts),
    logFields: (item) => ({ job_id: item.job_id, index: item.idx }),
    async perform(item, ctx) {
      const out = await deps.render({ speakerId: item.speaker_id, text: item.text, sampleRate: item.sample_rate });
      if (out.pcm.length === 0) throw new Error('Synthesis produced no audio');
      return writeAudioOnly(deps.blobs, wavInput(out.pcm, out.sampleRate, { id: itemAudioId(item.job_id, item.idx), userId: item.user_id, kind: 'tts', now: ctx.now() }));
    },
    async complete(item, audio, ctx) {
      await completeItem(db, item, audio, ctx.now(), ctx.owner);
    },
    async fail(item, failure, ctx) {
      await failItem(db, item, failure.message, ctx.now(), deps.refund, ctx.owner);
    },
  };
}
