import type { SqlParam } from '../db.js';

/** A statement and its parameters, as the query-plan tests run them. */
export interface BoundSql {
  sql: string;
  params: SqlParam[];
}

/**
 * One page of a user's rows of `table` (jobs, evaluations), newest first, optionally of one status, and
 * the count of all of them: the listing both queues share, exported so the query-plan tests run it.
 */
export function ownedPageQuery(
  table: 'jobs' | 'evaluations',
  q: { userId: string; status?: string; limit: number; offset: number },
): { items: BoundSql; total: BoundSql } {
  const where = q.status ? 'user_id = ? AND status = ?' : 'user_id = ?';
  const args: SqlParam[] = q.status ? [q.userId, q.status] : [q.userId];
  return {
    items: { sql: `SELECT * FROM ${table} WHERE ${where} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`, params: [...args, q.limit, q.offset] },
    total: { sql: `SELECT COUNT(*) FROM ${table} WHERE ${where}`, params: args },
  };
}
