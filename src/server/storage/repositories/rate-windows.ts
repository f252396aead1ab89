import type { Db } from '../db.js';

/** A subject's shared rate-limit windows (PostgreSQL, DESIGN §9.4). */
export interface RateWindow {
  minute: number;
  minuteCount: number;
  day: string;
  dayCount: number;
}

/** Day limit used for "unlimited": larger than any count a day can reach. */
const UNLIMITED = 2_000_000_000;

// One statement counts and checks both windows: the upsert holds the subject's row lock from the read of
// the old counts to the write, so concurrent requests on any instance are counted one after another.
// A window of an earlier minute/day starts again at 1. When a limit is spent the WHERE keeps the row as it
// was and nothing is returned.
const HIT_SQL = `
  INSERT INTO rate_windows AS w (subject, minute, minute_count, day, day_count)
  VALUES (@subject, @minute, 1, @day, 1)
  ON CONFLICT (subject) DO UPDATE SET
    minute = excluded.minute,
    minute_count = CASE WHEN w.minute = excluded.minute THEN w.minute_count + 1 ELSE 1 END,
    day = excluded.day,
    day_count = CASE WHEN w.day = excluded.day THEN w.day_count + 1 ELSE 1 END
  WHERE (w.minute <> excluded.minute OR w.minute_count < @per_minute)
    AND (w.day <> excluded.day OR w.day_count < @per_day)
  RETURNING minute, minute_count AS "minuteCount", day, day_count AS "dayCount"`;

/** Counts one request of `subject` when both windows have room; undefined (nothing counted) when not. */
export async function hitRateWindow(
  db: Db,
  o: { subject: string; minute: number; day: string; perMinute: number; perDay: number | null },
): Promise<RateWindow | undefined> {
  return db.get<RateWindow>(HIT_SQL, { subject: o.subject, minute: o.minute, day: o.day, per_minute: o.perMinute, per_day: o.perDay ?? UNLIMITED });
}

/** The subject's windows as they stand, or undefined when it never made a request. */
export async function peekRateWindow(db: Db, subject: string): Promise<RateWindow | undefined> {
  return db.get<RateWindow>('SELECT minute, minute_count AS "minuteCount", day, day_count AS "dayCount" FROM rate_windows WHERE subject = ?', [subject]);
}

/** Forgets windows whose day is before `day` (they limit nothing any more). */
export async function pruneRateWindows(db: Db, day: string): Promise<number> {
  return db.run('DELETE FROM rate_windows WHERE day < ?', [day]);
}
