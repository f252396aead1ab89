import type { Db } from '../storage/db.js';
import { insertAudio, type AudioRow } from '../storage/repositories/audio.js';
import { claimPendingItems, finishItem, requeueProcessingItems, type ClaimedItem } from '../storage/repositories/jobs.js';
import { recoverAudioDir } from '../services/audio-store.js';

/** Gives back the characters reserved for an item that failed (quota.refundCharacters in production). */
export type RefundFn = (db: Db, r: { userId: string; period: string; characters: number }) => Promise<void>;

/**
 * The audio id of a job item, derived from the job and index: a re-run after a crash writes the very
 * same file name, so an item can never end up with two files.
 */
export const itemAudioId = (jobId: string, idx: number): string => `aud_${jobId.replace(/^job_/, '')}_${idx}`;

/**
 * Start-up recovery (DESIGN §4.9): items a crash left `processing` are queued again, temp files and
 * files that no row records are removed. Returns the counts, for logs and tests.
 */
export async function recoverQueue(db: Db, dataDir: string): Promise<{ requeued: number; temp: number; orphans: number }> {
  const requeued = await db.transaction(() => requeueProcessingItems(db));
  return { requeued, ...(await recoverAudioDir(db, dataDir)) };
}

/** Takes up to `limit` pending items (FIFO) and marks them `processing`, atomically. */
export async function claimItems(db: Db, limit: number, now: Date): Promise<ClaimedItem[]> {
  if (limit <= 0) return [];
  return db.transaction(() => claimPendingItems(db, limit, now.toISOString()));
}

/** Records the item's audio row and marks it `success` in one transaction (the file is already in place). */
export async function completeItem(db: Db, item: ClaimedItem, audio: AudioRow, now: Date): Promise<void> {
  await db.transaction(async () => {
    await insertAudio(db, audio);
    await finishItem(db, { jobId: item.job_id, idx: item.idx, audioId: audio.id, now: now.toISOString() });
  });
}

/** Marks the item `failed` with `error` and refunds its characters in the same transaction. */
export async function failItem(db: Db, item: ClaimedItem, error: string, now: Date, refund: RefundFn): Promise<void> {
  await db.transaction(async () => {
    await finishItem(db, { jobId: item.job_id, idx: item.idx, error, now: now.toISOString() });
    await refund(db, { userId: item.user_id, period: item.period, characters: item.characters });
  });
}
