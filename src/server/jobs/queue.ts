import type { Db } from '../storage/db.js';
import { insertAudio, type AudioRow } from '../storage/repositories/audio.js';
import { claimPendingItems, finishItem, requeueProcessingItems, type ClaimedItem } from '../storage/repositories/jobs.js';
import { recoverAudioStore, type AudioBlobStore } from '../services/audio-store.js';
import type { Lease } from '../storage/repositories/leases.js';

/** Gives back the characters reserved for an item that failed (quota.refundCharacters in production). */
export type RefundFn = (db: Db, r: { userId: string; period: string; characters: number }) => Promise<void>;

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
export async function recoverQueue(db: Db, blobs: AudioBlobStore): Promise<{ requeued: number; temp: number; orphans: number }> {
  const requeued = await db.transaction(() => requeueProcessingItems(db));
  // Far in the future: every unrecorded blob is debris, nothing else writes while the service starts.
  return { requeued, ...(await recoverAudioStore(db, blobs, { orphansBefore: new Date(8.64e15) })) };
}

/** Takes up to `limit` claimable items (FIFO) under `lease` and marks them `processing`, atomically. */
export async function claimItems(db: Db, limit: number, now: Date, lease: Lease): Promise<ClaimedItem[]> {
  if (limit <= 0) return [];
  // READ COMMITTED: SKIP LOCKED passes over rows a peer is claiming instead of failing the transaction.
  return db.transaction(() => claimPendingItems(db, limit, now.toISOString(), lease), { isolation: 'read committed' });
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
