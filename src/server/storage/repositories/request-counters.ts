import type { Db } from '../db.js';
import { prepared } from './prepared.js';

/** One persisted day count of the rate limiter (subject = key id or user id, day = `YYYY-MM-DD` UTC). */
export interface RequestCount {
  subject: string;
  day: string;
  count: number;
}

/** SQL of the counter reads and pruning, exported so the query-plan test checks what production runs. */
export const REQUEST_COUNTER_SQL = {
  load: 'SELECT count FROM request_counters WHERE subject = ? AND day = ?',
  pruneBefore: 'DELETE FROM request_counters WHERE day < ?',
} as const;

/** The persisted count of `subject` on `day` (0 when none). */
export function loadRequestCount(db: Db, subject: string, day: string): number {
  const row = prepared(db, REQUEST_COUNTER_SQL.load).get(subject, day) as
    | { count: number }
    | undefined;
  return row?.count ?? 0;
}

/** Writes the given counts (upsert), all in one transaction. */
export function saveRequestCounts(db: Db, counts: RequestCount[]): void {
  const upsert = prepared(
    db,
    `INSERT INTO request_counters (subject, day, count) VALUES (@subject, @day, @count)
     ON CONFLICT (subject, day) DO UPDATE SET count = max(count, excluded.count)`,
  );
  db.transaction(() => {
    for (const c of counts) upsert.run(c);
  })();
}

/** Deletes the counts of days before `day` (they no longer limit anything). */
export function deleteRequestCountsBefore(db: Db, day: string): void {
  prepared(db, REQUEST_COUNTER_SQL.pruneBefore).run(day);
}
