import type { DatabaseAvailability } from '../../storage/database-availability.js';
import { hostname } from 'node:os';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Db } from '../../storage/db.js';
import { beat, deleteInstances, insertInstance, type InstanceRow } from './instances-repository.js';
import { TAKEOVER_AFTER_MS } from '../../storage/repositories/leases.js';
import { refundStaleReservations } from '../limits/index.js';
import type { AudioBlobStore } from '../../storage/blobs/index.js';
import { recoverAudioStore, type PendingBlobs } from '../audio/index.js';
import { pruneRateWindows } from '../limits/index.js';
import { utcDay } from '../limits/index.js';

/** How often an instance on a shared database says it is alive. */
export const HEARTBEAT_MS = 10_000;
/** Silent this long, an instance counts as dead: its reservations are refunded by a peer. */
export const DEAD_AFTER_MS = 60_000;
/** Unrecorded blobs younger than this may be a peer's write about to be recorded; older ones are debris. */
const ORPHAN_AGE_MS = 3_600_000;
/** Replaced blob versions stay this long for streams that were reading them. */
const RETIRED_GRACE_MS = 600_000;
/**
 * After an outage an instance waits this long, its own heartbeat written again, before it judges a peer
 * (DESIGN §14.10): by then every live peer has written its own, so a heartbeat the outage aged is never
 * taken for a death. The same 30 s that make a heartbeat stale (§14.7).
 */
export const JUDGE_AFTER_MS = TAKEOVER_AFTER_MS;
/** While the own heartbeat cannot be written, it is tried again this often (not every HEARTBEAT_MS). */
const BEAT_RETRY_MS = 1_000;

/** The background upkeep of one instance among several. */
export interface InstancePresence {
  /** Runs one round of upkeep now (tests). */
  sweep(): Promise<void>;
  /**
   * True while this instance may judge its peers — take a stale heartbeat for a death, an expired lease
   * for a stalled holder (DESIGN §14.10): its own heartbeat is current, the database is not known to be
   * away, and after an outage a full JUDGE_AFTER_MS has passed since its own heartbeat was written again.
   */
  mayJudge(): boolean;
  /** Stops the timers and removes the instance's row (its reservations settle before the db closes). */
  close(): Promise<void>;
}

/**
 * Registers an instance sharing a PostgreSQL (DESIGN §9) and keeps it visible: a heartbeat every 10 s
 * (every second while it cannot be written); every minute (and at start) a sweep that refunds the
 * reservations of instances silent for a minute, forgets those instances, frees replaced audio versions
 * (and hourly, unrecorded blobs older than an hour), and drops rate windows of days gone. Any instance may
 * sweep: each step is idempotent. Judging peers (the refunds, the forgetting) waits for `mayJudge`.
 */
export async function startInstancePresence(o: {
  db: Db;
  clock: Clock;
  id: string;
  blobs: AudioBlobStore;
  /** Blobs other features own before a row records them: the hourly sweep keeps them. */
  pendingBlobs: PendingBlobs;
  logger: Logger;
  database?: Pick<DatabaseAvailability, 'report' | 'isDown'>;
}): Promise<InstancePresence> {
  const now = () => o.clock.now();
  const self: InstanceRow = { id: o.id, host: hostname(), pid: process.pid, started_at: now().toISOString(), heartbeat_at: now().toISOString() };
  await insertInstance(o.db, self);
  // The own heartbeat: when it last landed, and since when it has landed without a break. At start the
  // instance has seen no outage, so it judges at once (a peer killed before it started is found dead now).
  let beatAt = now().getTime();
  let currentSince: number | undefined = beatAt - JUDGE_AFTER_MS;
  let nextBeat = beatAt + HEARTBEAT_MS;
  let beating = false;
  const broken = () => {
    currentSince = undefined;
  };
  const mayJudge = (): boolean => {
    const t = now().getTime();
    if (o.database?.isDown()) broken();
    // A heartbeat of ours older than two beats is a sign the database (or this process) is stalling.
    return currentSince !== undefined && t - beatAt < 2 * HEARTBEAT_MS && t - currentSince >= JUDGE_AFTER_MS;
  };
  let round = 0;
  const sweep = async () => {
    const deadBefore = new Date(now().getTime() - DEAD_AFTER_MS);
    if (mayJudge()) {
      const refunded = await refundStaleReservations(o.db, { deadBefore });
      if (refunded.refunded > 0) o.logger.info(refunded, 'refunded the reservations of stopped instances');
      await deleteInstances(o.db, { deadBefore: deadBefore.toISOString() });
    }
    await o.blobs.collectRetired?.(new Date(now().getTime() - RETIRED_GRACE_MS));
    // Listing every blob is the costly step: at start and then hourly.
    if (round++ % 60 === 0) await recoverAudioStore(o.db, o.blobs, { orphansBefore: new Date(now().getTime() - ORPHAN_AGE_MS), pending: o.pendingBlobs });
    await pruneRateWindows(o.db, utcDay(now().getTime() - 86_400_000));
  };
  const report = (err: unknown) => {
    // The database away is said once per outage by the availability tracker, not at every beat.
    if (!o.database?.report(err)) o.logger.warn({ err }, 'instance upkeep failed (retried later)');
  };
  /** Beats when due: every HEARTBEAT_MS, or every second while the database is away. */
  const tick = async () => {
    const t = now().getTime();
    if (o.database?.isDown()) broken();
    // Not current (an outage, a failed beat): beat at every tick until one lands with the database back.
    if (currentSince === undefined) nextBeat = Math.min(nextBeat, t);
    if (beating || t < nextBeat) return;
    beating = true;
    try {
      await beat(o.db, { ...self, heartbeat_at: new Date(t).toISOString() });
      beatAt = t;
      nextBeat = t + HEARTBEAT_MS;
      // Written again after a break, the database known back: the wait before judging starts now.
      if (!o.database?.isDown()) currentSince ??= t;
    } catch (err) {
      broken();
      // The database away: tried every second, so the wait before judging starts as soon as it is back.
      const away = o.database?.report(err) ?? false;
      if (!away) o.logger.warn({ err }, 'instance heartbeat failed (retried later)');
      nextBeat = t + (away ? BEAT_RETRY_MS : HEARTBEAT_MS);
    } finally {
      beating = false;
    }
  };
  await sweep().catch(report);
  const heartbeat = setInterval(() => void tick(), BEAT_RETRY_MS);
  const sweeper = setInterval(() => void sweep().catch(report), 60_000);
  heartbeat.unref();
  sweeper.unref();
  return {
    sweep,
    mayJudge,
    async close() {
      clearInterval(heartbeat);
      clearInterval(sweeper);
      await deleteInstances(o.db, { id: o.id }).catch(report);
    },
  };
}
