import type { DatabaseAvailability } from './database-availability.js';
import { hostname } from 'node:os';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Db } from '../../storage/db.js';
import { beat, deleteInstances, insertInstance } from '../../storage/repositories/instances.js';
import { refundStaleReservations } from '../limits/reservations.js';
import type { AudioBlobStore } from '../../storage/blobs/index.js';
import { recoverAudioStore } from '../audio/audio-store.js';
import { pruneRateWindows } from '../../storage/repositories/rate-windows.js';
import { utcDay } from '../limits/rate-decision.js';

/** How often an instance on a shared database says it is alive. */
export const HEARTBEAT_MS = 10_000;
/** Silent this long, an instance counts as dead: its reservations are refunded by a peer. */
export const DEAD_AFTER_MS = 60_000;
/** Unrecorded blobs younger than this may be a peer's write about to be recorded; older ones are debris. */
const ORPHAN_AGE_MS = 3_600_000;
/** Replaced blob versions stay this long for streams that were reading them. */
const RETIRED_GRACE_MS = 600_000;

/** The background upkeep of one instance among several. */
export interface InstancePresence {
  /** Runs one round of upkeep now (tests). */
  sweep(): Promise<void>;
  /** Stops the timers and removes the instance's row (its reservations settle before the db closes). */
  close(): Promise<void>;
}

/**
 * Registers an instance sharing a PostgreSQL (DESIGN §9) and keeps it visible: a heartbeat every 10 s;
 * every minute (and at start) a sweep that refunds the reservations of instances silent for a minute,
 * forgets those instances, frees replaced audio versions (and hourly, unrecorded blobs older than an hour), and
 * drops rate windows of days gone. Any instance may sweep: each step is idempotent.
 */
export async function startInstancePresence(o: {
  db: Db;
  clock: Clock;
  id: string;
  blobs: AudioBlobStore;
  logger: Logger;
  database?: Pick<DatabaseAvailability, 'report'>;
}): Promise<InstancePresence> {
  const now = () => o.clock.now();
  await insertInstance(o.db, { id: o.id, host: hostname(), pid: process.pid, started_at: now().toISOString(), heartbeat_at: now().toISOString() });
  let round = 0;
  const sweep = async () => {
    const deadBefore = new Date(now().getTime() - DEAD_AFTER_MS);
    const refunded = await refundStaleReservations(o.db, { deadBefore });
    if (refunded.refunded > 0) o.logger.info(refunded, 'refunded the reservations of stopped instances');
    await deleteInstances(o.db, { deadBefore: deadBefore.toISOString() });
    await o.blobs.collectRetired?.(new Date(now().getTime() - RETIRED_GRACE_MS));
    // Listing every blob is the costly step: at start and then hourly.
    if (round++ % 60 === 0) await recoverAudioStore(o.db, o.blobs, { orphansBefore: new Date(now().getTime() - ORPHAN_AGE_MS) });
    await pruneRateWindows(o.db, utcDay(now().getTime() - 86_400_000));
  };
  const report = (err: unknown) => {
    // The database away is said once per outage by the availability tracker, not at every beat.
    if (!o.database?.report(err)) o.logger.warn({ err }, 'instance upkeep failed (retried later)');
  };
  await sweep().catch(report);
  const heartbeat = setInterval(() => void beat(o.db, o.id, now().toISOString()).catch(report), HEARTBEAT_MS);
  const sweeper = setInterval(() => void sweep().catch(report), 60_000);
  heartbeat.unref();
  sweeper.unref();
  return {
    sweep,
    async close() {
      clearInterval(heartbeat);
      clearInterval(sweeper);
      await deleteInstances(o.db, { id: o.id }).catch(report);
    },
  };
}
