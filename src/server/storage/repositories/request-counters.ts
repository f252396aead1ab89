import type { Db } from '../db.js';

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
export async function loadRequestCount(db: Db, subject: string, day: string): Promise<number> {
  const count = await db.value<number>(REQUEST_COUNTER_SQL.load, [subject, day]);
  return Number(count ?? 0);
}

/** Writes the given counts (upsert), all in one transaction. */
export async function saveRequestCounts(db: Db, counts: RequestCount[]): Promise<void> {
  await db.transaction(async () => {
    for (const c of counts) {
      await db.run(
        `INSERT INTO request_counters (subject, day, count) VALUES (@subject, @day, @count)
     ON CONFLICT (subject, day) DO UPDATE SET count = CASE WHEN excluded.count > request_counters.count THEN excluded.count ELSE request_counters.count END`,
        { ...c },
      );
    }
  });
}

/** Deletes the counts of days before `day` (they no longer limit anything). */
export async function deleteRequestCountsBefore(db: Db, day: string): Promise<void> {
  await db.run(REQUEST_COUNTER_SQL.pruneBefore, [day]);
}
