import type { Clock } from '../clock.js';
import type { Db } from '../storage/db.js';
import { releaseLeases, renewLeases, type Lease, type LeasedTable } from '../storage/repositories/leases.js';

/** How an instance takes part in the shared work queues (DESIGN §9.3). */
export interface WorkSharing {
  /** This instance's id: the owner of its leases. */
  owner: string;
  /** How long a claim stays this instance's without renewal (default 60 s). */
  leaseMs: number;
  /** True when other instances share the queues (PostgreSQL): poll for their work, never requeue theirs. */
  shared: boolean;
  /** False for an API-only instance (`--workers 0`): it claims nothing. */
  claims: boolean;
  /** How often a shared instance looks for work queued by its peers or left by a dead one. */
  pollMs: number;
  /**
   * Whether the instance may take over its peers' rows now (DESIGN §14.10): false while its own heartbeat
   * is not current, and for 30 s after a database outage. Absent: always (one instance on its data dir).
   */
  mayJudge?(): boolean;
}

/** Keeps one work loop's leases alive and its queue watched. */
export interface LeaseKeeper {
  /** The lease a claim made now takes. */
  lease(): Lease;
  /** Starts renewing (every third of the lease) and, when shared, polling. */
  start(): void;
  /** Stops the timers and hands back every row still leased (graceful shutdown). */
  stop(): Promise<void>;
}

/** After a renewal failed (the database away), the next try comes this soon, not a third of a lease later. */
const RENEW_RETRY_MS = 1_000;

/**
 * Renews every lease the instance holds on `table` in one statement, a third of the lease length apart,
 * so a claim outlives two missed renewals — and every second after a failed renewal, so leases an outage
 * let run out are renewed as soon as the database is back, before any peer may judge them (its 30 s wait,
 * DESIGN §14.10). On a shared queue, also calls `poll` so work queued at a peer (which wakes only that
 * peer) and leases expired by a dead peer are picked up.
 */
export function createLeaseKeeper(o: {
  db: Db;
  table: LeasedTable;
  clock: Clock;
  work: WorkSharing;
  poll(): void;
  onError(err: unknown): void;
  /** How many rows a stop handed back (none: not called). */
  onHandback?(count: number): void;
}): LeaseKeeper {
  const timers: NodeJS.Timeout[] = [];
  let renewal: NodeJS.Timeout | undefined;
  let running = false;
  const lease = (): Lease => ({ owner: o.work.owner, expiresAt: new Date(o.clock.now().getTime() + o.work.leaseMs).toISOString() });
  const every = Math.max(100, Math.floor(o.work.leaseMs / 3));
  const schedule = (ms: number) => {
    if (!running) return;
    renewal = setTimeout(renew, ms);
    renewal.unref();
  };
  function renew(): void {
    renewLeases(o.db, o.table, lease()).then(
      () => schedule(every),
      (err: unknown) => {
        o.onError(err);
        schedule(Math.min(every, RENEW_RETRY_MS));
      },
    );
  }
  return {
    lease,
    start() {
      if (!o.work.claims || running) return;
      running = true;
      schedule(every);
      if (o.work.shared) {
        const poll = setInterval(o.poll, o.work.pollMs);
        poll.unref();
        timers.push(poll);
      }
    },
    async stop() {
      running = false;
      clearTimeout(renewal);
      for (const t of timers.splice(0)) clearInterval(t);
      // Best effort: a database already gone cannot take them back, and the leases expire on their own.
      if (!o.work.claims) return;
      const count = await releaseLeases(o.db, o.table, o.work.owner).catch(o.onError);
      if (count) o.onHandback?.(count);
    },
  };
}
