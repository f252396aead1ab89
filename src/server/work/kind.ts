/**
 * What one kind of background work tells the claim loop (loop.ts). The loop owns everything common to
 * every queue — claiming under a lease up to a capacity, waking, polling peers, renewing and handing back
 * leases, start-up recovery, stop and drain, and the failure policy — so a kind says only how to claim,
 * do, commit and fail one row of its table.
 */
import type { Lease, LeasedTable } from '../storage/repositories/leases.js';

/** Why a claim failed, as its row records it: a stable code and the message the user sees. */
export interface WorkFailure {
  code: string;
  message: string;
}

/** What the loop hands a kind with each claim. */
export interface WorkContext {
  /** Aborted when the loop stops: give it to anything that can be cancelled (requests, waits). */
  readonly signal: AbortSignal;
  /** This instance: the owner of the claim's lease; a write that ends a claim checks it still holds it. */
  readonly owner: string;
  /** True once the loop is stopping: store nothing more, the claim goes back to the queue. */
  stopping(): boolean;
  now(): Date;
}

/**
 * One kind of work over a leased queue table. For each claim the loop calls `perform`, then `complete`
 * with its output; when `perform` throws (and the loop is not stopping) it calls `fail` with the failure
 * policy's description; `settle` runs last, whatever happened.
 */
export interface WorkKind<Claim, Output = void> {
  /** The leased table (DESIGN §9.3): its leases are renewed while claims run and handed back on stop. */
  readonly table: LeasedTable;
  /** Claims in flight at once. */
  readonly capacity: number;
  /** The failure of this kind when the error is not a DomainError: `{ code, prefix }` of its message. */
  readonly failure: { code: string; prefix: string };
  /**
   * Start-up of the one instance of a data dir: requeue what a crash left `processing`, remove debris.
   * Never run when peers share the queue: their rows are `processing` too, expired leases bring a dead
   * peer's back.
   */
  recover(ctx: WorkContext): Promise<void>;
  /** Every start, after `recover`: finish what a crash left complete but not yet summed up. */
  resume?(ctx: WorkContext): Promise<void>;
  /**
   * Takes up to `limit` claimable rows under `lease` and marks them `processing`, atomically: first rows
   * a dead or stalled peer held, then pending ones (DESIGN §14.11). `takeover: false` while the instance
   * may not judge its peers (DESIGN §14.10): pending rows only.
   */
  claim(limit: number, now: Date, lease: Lease, opts: { takeover: boolean }): Promise<Claim[]>;
  /** What names the claim in a log line: `job_id` or `evaluation_id`, and `index` (DESIGN §14.10). */
  logFields?(claim: Claim): Record<string, string | number>;
  /** Who held `claim` before this instance took it over (a dead or stalled peer), if anyone: logged. */
  previousOwner?(claim: Claim): string | null | undefined;
  /**
   * The work itself (synthesis, reading audio): a throw is this claim's failure — except the database
   * being away, after which the claim is run again once it answers, so perform must be idempotent.
   */
  perform(claim: Claim, ctx: WorkContext): Promise<Output>;
  /**
   * Commits the output. The database away: the claim runs again once it answers; a database error: the
   * claim fails at once; any other throw is reported and the claim stays leased.
   */
  complete(claim: Claim, output: Output, ctx: WorkContext): Promise<void>;
  /** Records `failure` on the claim and refunds what it reserved: once, and only by the lease holder. */
  fail(claim: Claim, failure: WorkFailure, ctx: WorkContext): Promise<void>;
  /** After each claim, whatever its end (an evaluation finishes when its last synthesis has). */
  settle?(claim: Claim, ctx: WorkContext): Promise<void>;
}
