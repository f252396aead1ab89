/**
 * The claim loop of every kind of background work (DESIGN §4.8, §4.9, §9.3): it claims what there is room
 * for under a lease, runs each claim through its kind, wakes on new work without polling (and polls when
 * peers share the queue), renews leases while claims run, recovers at start, and on stop drains what is
 * in flight and hands back what is still leased. A fix to any of this is made here, once.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import type { Db } from '../storage/db.js';
import { isDatabaseError } from '../storage/sql/errors.js';
import { isConnectionFailure } from '../storage/database-availability.js';
import { describeFailure } from './failure.js';
import type { WorkContext, WorkKind } from './kind.js';
import { createLeaseKeeper, type WorkSharing } from './leases.js';

/** What the loop needs besides its kind. */
export interface WorkLoopDeps {
  db: Db;
  clock: Clock;
  /** This instance's claims: its id, the lease length, and whether peers share the queue (PostgreSQL). */
  work: WorkSharing;
  /** Unexpected errors of the loop itself (database trouble); default: ignored. */
  onError?(err: unknown): void;
  /** Each claim that ended — recorded (`succeeded`) or failed by the failure policy — or will run again (`retried`: the database was away) (metrics). */
  onOutcome?(outcome: 'succeeded' | 'failed' | 'retried'): void;
  /** Leases that changed hands: taken over from dead or stalled peers, or handed back on stop (logged). */
  onLease?(event: 'lease_takeover' | 'lease_handback', fields: { count: number; from?: string[] }): void;
  /**
   * A claim failed by a database error (DESIGN §14.10): logged as `work_item_failed` under `requestId`,
   * with the claim's fields (`job_id` or `evaluation_id`, `index`) and the cause; the claim's message
   * names only the id.
   */
  onInternalFailure?(fields: Record<string, string | number>, err: unknown, requestId: string): void;
}

/** While the database is away, a claim waiting to run again asks for it this often. */
const REACHABLE_POLL_MS = 1_000;

/** A running queue worker. */
export interface WorkLoop {
  /** Recovers after a crash and starts claiming (resolves once recovered; concurrent calls share it). */
  start(): Promise<void>;
  /** New work was queued: claim it now. */
  wake(): void;
  /** Stops claiming, aborts what can be, waits for claims in flight; unfinished ones go back to the queue. */
  stop(): Promise<void>;
  /** Resolves when nothing is in flight nor being claimed (tests, benchmarks). */
  idle(): Promise<void>;
}

/** Builds the loop of one kind; the composition root starts it once the database is migrated. */
export function createWorkLoop<Claim, Output>(kind: WorkKind<Claim, Output>, deps: WorkLoopDeps): WorkLoop {
  const active = new Set<Promise<void>>();
  const abort = new AbortController();
  // One stop signal is handed to every queued and running request: hundreds of listeners are expected.
  setMaxListeners(0, abort.signal);
  let stopped = false;
  let started = false;
  let starting: Promise<void> | undefined;
  let idleWaiters: (() => void)[] = [];
  // One claim at a time: two overlapping claims would both count the free room and take too many.
  let pumping: Promise<void> | undefined;
  let pumpAgain = false;

  const report = (err: unknown) => deps.onError?.(err);
  // Renews this instance's leases while it works, polls for work its peers queued, hands leases back on stop.
  const leases = createLeaseKeeper({ db: deps.db, table: kind.table, clock: deps.clock, work: deps.work, poll: () => pump(), onError: report, onHandback: (count) => deps.onLease?.('lease_handback', { count }) });
  const ctx: WorkContext = { signal: abort.signal, owner: deps.work.owner, stopping: () => stopped, now: () => deps.clock.now() };

  function notifyIfIdle(): void {
    if (active.size > 0 || pumping) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Records the failure of `claim` by `err` through the kind: the failure policy is applied here and nowhere else. */
  async function failWith(claim: Claim, err: unknown): Promise<void> {
    const failure = describeFailure(err, kind.failure);
    if (failure.requestId) deps.onInternalFailure?.(kind.logFields?.(claim) ?? {}, err, failure.requestId);
    await kind.fail(claim, { code: failure.code, message: failure.message }, ctx);
    deps.onOutcome?.('failed');
  }

  /** One run of a claim; a throw that is the database away is the caller's to retry. */
  async function attempt(claim: Claim): Promise<void> {
    let output: Output;
    try {
      output = await kind.perform(claim, ctx);
    } catch (err) {
      // Shutting down (the pool closes under us, requests are aborted): not a failure of the claim; it
      // stays leased, and stop() hands it back for a peer or the next start.
      if (stopped) return;
      if (isConnectionFailure(err)) throw err;
      await failWith(claim, err);
      return;
    }
    try {
      await kind.complete(claim, output, ctx);
    } catch (err) {
      // A database error with the database reachable (a constraint, a lock) fails the claim at once.
      if (stopped || isConnectionFailure(err) || !isDatabaseError(err)) throw err;
      await failWith(claim, err);
      return;
    }
    deps.onOutcome?.('succeeded');
  }

  /** Resolves once the database answers again (or the loop stops). */
  async function reachable(): Promise<void> {
    while (!stopped) {
      await sleep(REACHABLE_POLL_MS, undefined, { signal: abort.signal }).catch(() => undefined);
      if (stopped) return;
      try {
        await deps.db.value('SELECT 1');
        return;
      } catch (err) {
        if (!isConnectionFailure(err)) return;
      }
    }
  }

  /**
   * One claim, start to end. The database away is no failure of the claim (DESIGN §14.10): it stays this
   * instance's, and runs again — the kinds' work is idempotent — once the database answers.
   */
  async function run(claim: Claim): Promise<void> {
    try {
      for (;;) {
        try {
          await attempt(claim);
          return;
        } catch (err) {
          if (stopped || !isConnectionFailure(err)) throw err;
          report(err);
          deps.onOutcome?.('retried');
          await reachable();
          if (stopped) return;
        }
      }
    } catch (err) {
      report(err);
    } finally {
      if (kind.settle) await kind.settle(claim, ctx).catch(report);
    }
  }

  /** Claims what there is room for and starts each claim. */
  async function claimOnce(): Promise<void> {
    const room = kind.capacity - active.size;
    if (stopped || room <= 0) return;
    let claimed: Claim[];
    try {
      // Only an instance whose own heartbeat is current, and not just back from an outage, takes over.
      claimed = await kind.claim(room, ctx.now(), leases.lease(), { takeover: deps.work.mayJudge?.() ?? true });
    } catch (err) {
      report(err);
      return;
    }
    const previous = claimed.map((c) => kind.previousOwner?.(c)).filter((o): o is string => Boolean(o) && o !== deps.work.owner);
    if (previous.length > 0) deps.onLease?.('lease_takeover', { count: previous.length, from: [...new Set(previous)] });
    // Stopped while claiming: the claims stay leased and stop() hands them back.
    if (stopped) return;
    for (const claim of claimed) {
      const task: Promise<void> = run(claim).finally(() => {
        active.delete(task);
        pump();
        notifyIfIdle();
      });
      active.add(task);
    }
  }

  function pump(): void {
    if (stopped || !started || !deps.work.claims) return;
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
      starting ??= (async () => {
        // Nothing is claimed before recovery has requeued what a crash left `processing` (one instance per
        // data dir); instances sharing a queue leave that to the leases.
        if (!deps.work.shared) await kind.recover(ctx);
        await kind.resume?.(ctx);
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
      // A claim in progress adds its claims to `active` before it settles.
      await pumping;
      await Promise.allSettled([...active]);
      // Whatever is still ours (work cut off by the shutdown) goes back to the queue for a peer or the next start.
      await leases.stop();
    },
    idle() {
      if (active.size === 0 && !pumping) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
