import type { Db, Queryable } from '../db.js';

/** The two work queues whose rows are leased (DESIGN §9.3). */
export type LeasedTable = 'job_items' | 'evaluation_syntheses';

/** Who holds a claim and until when (ISO time): renewed while the work runs. */
export interface Lease {
  owner: string;
  expiresAt: string;
}

/**
 * An instance whose heartbeat is older than this is dead (DESIGN §14.7): its leases are taken over at
 * once instead of waiting them out. Heartbeats come every 10 s, so a live instance is never this late.
 */
export const TAKEOVER_AFTER_MS = 30_000;

/**
 * Rows of `alias` a worker may take over once the pending rows are taken: their lease ran out (the
 * instance stalled), their owner's heartbeat stopped (a SIGKILLed peer: finished within ~45 s, not after
 * the whole lease), or their owner is no instance any more — a dead peer's row is forgotten a minute
 * after its last heartbeat (instances.ts), and what it still held must not wait out its lease then
 * (DESIGN §14.7). A live instance's row exists from before its first claim until after its last lease is
 * handed back, and is only forgotten by a peer that may judge (§14.10). SQLite keeps no instance rows
 * (one process, which requeues what a previous one held when it starts): a lease of another owner there
 * is a dead process's. Takes three parameters: the current time, the current time less
 * TAKEOVER_AFTER_MS, and the claiming owner (its own rows are its own, whatever the table says).
 */
export const expiredWhere = (alias: string): string =>
  `${alias}.status = 'processing' AND (${alias}.lease_expires_at < ? OR ${alias}.lease_owner IN (SELECT id FROM instances WHERE heartbeat_at < ?)` +
  ` OR (${alias}.lease_owner <> ? AND NOT EXISTS (SELECT 1 FROM instances WHERE instances.id = ${alias}.lease_owner)))`;

/** The parameters of `expiredWhere` at `now` (ISO) for the claiming `owner`. */
export const expiredParams = (now: string, owner: string): [string, string, string] => [now, new Date(Date.parse(now) - TAKEOVER_AFTER_MS).toISOString(), owner];

/**
 * The row lock of a claim on PostgreSQL: rows another instance is claiming this very moment are skipped,
 * not waited for. SQLite has one writer at a time and needs nothing.
 */
export const skipLocked = (db: Queryable, alias: string): string => (db.dialect === 'postgres' ? ` FOR UPDATE OF ${alias} SKIP LOCKED` : '');

/** Extends every lease `owner` holds on `table`; resolves to how many rows it still holds. */
export function renewLeases(db: Db, table: LeasedTable, lease: Lease): Promise<number> {
  return db.run(`UPDATE ${table} SET lease_expires_at = ? WHERE lease_owner = ? AND status = 'processing'`, [lease.expiresAt, lease.owner]);
}

/** Hands every row `owner` still holds on `table` back to the queue (graceful shutdown); how many. */
export function releaseLeases(db: Db, table: LeasedTable, owner: string): Promise<number> {
  return db.run(`UPDATE ${table} SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ? AND status = 'processing'`, [owner]);
}

/** How many rows of `table` wait and how many are being worked (`/health`'s queue). */
export async function queueDepth(db: Db, table: LeasedTable): Promise<{ pending: number; processing: number }> {
  const rows = await db.all<{ status: string; n: number }>(
    `SELECT status, count(*) AS n FROM ${table} WHERE status IN ('pending', 'processing') GROUP BY status`,
  );
  const of = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  return { pending: of('pending'), processing: of('processing') };
}
