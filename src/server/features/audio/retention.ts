/**
 * Audio retention (`--audio-retention-days`): without it the audio folder (or table, or bucket) only grows.
 * Generated audio and single uploads older than the retention are deleted from the store and their rows
 * marked `expired_at`, so a link to one answers 410 with why instead of a bare 404; a corpus's recordings
 * stay until their corpus is deleted. The rows stay too: usage and job history still count them.
 */
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Db } from '../../storage/db.js';
import type { AudioBlobStore } from '../../storage/blobs/index.js';
import { DomainError } from '../../../shared/errors.js';
import { expirableAudio, expiredAudioPaths, markAudioExpired } from './repository.js';

/** The answer for audio the retention deleted (410). */
export function audioExpired(days: number | undefined): DomainError {
  return new DomainError('audio_expired', days === undefined ? 'Audio expired: deleted under an earlier audio retention' : `Audio expired: this service keeps audio for ${days} day${days === 1 ? '' : 's'}`);
}

/** Rows taken at a time: each batch's rows are marked, then its files deleted. */
const BATCH = 500;

/**
 * Marks the audio stored before `before` that the retention may delete as expired, then deletes its
 * files, a batch at a time; resolves to how many. Rows go first, so whoever reads a row that is not
 * expired finds its file (a link answers 410 or 200, never a 404; a backup copies the file or sees the
 * row expired, `storage/backup.ts`). A crash between leaves files of expired rows: the first sweep after
 * a start deletes again those of rows expired in the day before (`deleteRecentlyExpired`). Any instance
 * may run it at any time: each step is idempotent.
 */
export async function expireAudio(db: Db, blobs: AudioBlobStore, o: { before: Date; now: Date; stopped?: () => boolean }): Promise<number> {
  let expired = 0;
  // A stop (the service closing) ends it between batches: what is left waits for the next sweep.
  while (!o.stopped?.()) {
    const rows = await expirableAudio(db, { before: o.before.toISOString(), limit: BATCH });
    await markAudioExpired(
      db,
      rows.map((r) => r.id),
      o.now.toISOString(),
    );
    for (const row of rows) await blobs.delete(row.path);
    expired += rows.length;
    if (rows.length < BATCH) break;
  }
  return expired;
}

/** Deletes again the files of rows expired since `since` (what a crash between the mark and the delete left). */
export async function deleteRecentlyExpired(db: Db, blobs: AudioBlobStore, since: Date): Promise<void> {
  for (const path of await expiredAudioPaths(db, since.toISOString())) await blobs.delete(path);
}

/** How often the retention looks for audio past it. */
const SWEEP_MS = 3_600_000;

/** The retention's sweep, at start and hourly. */
export interface AudioRetention {
  /** One sweep now (tests; the timer's). */
  sweep(): Promise<number>;
  /** Stops the timer, and the sweep under way after its current batch; resolves once it has stopped. */
  close(): Promise<void>;
}

/**
 * Starts the hourly sweep of audio older than `days`, the first one at once in the background (the first
 * sweep after the setting is turned on may have years to delete; the service does not wait for it).
 */
export function startAudioRetention(o: { db: Db; blobs: AudioBlobStore; clock: Clock; logger: Logger; days: number }): AudioRetention {
  let running: Promise<number> | undefined;
  let started = false;
  let closed = false;
  const sweep = (): Promise<number> => {
    running ??= (async () => {
      try {
        const now = o.clock.now();
        if (!started) await deleteRecentlyExpired(o.db, o.blobs, new Date(now.getTime() - 86_400_000));
        started = true;
        const expired = await expireAudio(o.db, o.blobs, { before: new Date(now.getTime() - o.days * 86_400_000), now, stopped: () => closed });
        if (expired > 0) o.logger.info({ event: 'audio_expired', count: expired, retention_days: o.days }, `deleted ${expired} audio files older than ${o.days} days`);
        return expired;
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  const report = (err: unknown) => o.logger.warn({ err }, 'audio retention sweep failed (retried within the hour)');
  void sweep().catch(report);
  const timer = setInterval(() => void sweep().catch(report), SWEEP_MS);
  timer.unref();
  return {
    sweep,
    async close() {
      closed = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
