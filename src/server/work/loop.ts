/**
 * The claim loop of every kind of background work (DESIGN §4.8, §4.9, §9.3): it claims what there is room
 * for under a lease, runs each claim through its kind, wakes on new work without polling (and polls when
 * peers share the queue), renews leases while claims run, recovers at start, and on stop drains what is
 * in flight and hands back what is still leased. A fix to any of this is made here, once.
 */
import { setMaxListeners } from 'node:events';
import type { Clock } from '../clock.js';
import type { Db } from '../storage/db.js';
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
  /** Each claim that ended: recorded (`succeeded`) or failed by the failure policy (metrics). */
  onOutcome?(outcome: 'succeeded' | 'failed'): void;
  /** Leases that changed hands: taken over from dead or stalled peers, or handed back on stop (logged). */
  onLease?(event: 'lease_takeover' | 'lease_handback', fields: { count: number; from?: string[] }): void;
}

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

  /** One claim, start to end: the failure policy is applied here and nowhere else. */
  async function run(claim: Claim): Promise<void> {
    try {
      let output: Output;
      try {
        output = await kind.perform(claim, ctx);
      } catch (err) {
        // Shutting down (the pool closes under us, requests are aborted): not a failure of the claim; it
        // stays leased, and stop() hands it back for a peer or the next start.
        if (stopped) return;
        await kind.fail(claim, describeFailure(err, kind.failure), ctx);
        deps.onOutcome?.('failed');
        return;
      }
      await kind.complete(claim, output, ctx);
      deps.onOutcome?.('succeeded');
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
      claimed = await kind.claim(room, ctx.now(), leases.lease());
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
