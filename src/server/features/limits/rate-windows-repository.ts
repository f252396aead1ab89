import type { Db } from '../../storage/db.js';

/** A subject's shared rate-limit windows (PostgreSQL, DESIGN §9.4). */
export interface RateWindow {
  minute: number;
  minuteCount: number;
  day: string;
  dayCount: number;
}

/** `n` requests of one subject to count now, under its limits. */
export interface RateHits {
  subject: string;
  minute: number;
  day: string;
  n: number;
  perMinute: number;
  /** null: no day limit. */
  perDay: number | null;
}

/** A subject's windows after a count, and how many of its requests were granted (the first `granted`). */
export interface RateOutcome extends RateWindow {
  subject: string;
  granted: number;
}

/** Day limit used for "unlimited": larger than any count a day can reach. */
const UNLIMITED = 2_000_000_000;

// The counts of the window the hits fall in: a row of an earlier minute/day counts as empty. A hit from an
// instance whose clock lags (an earlier minute than the row's) counts in the row's window — a window
// never moves back, so skewed clocks cannot reopen a spent one.
const MINUTE_USED = '(CASE WHEN w.minute >= t.minute THEN w.minute_count ELSE 0 END)';
const DAY_USED = '(CASE WHEN w.day >= t.day THEN w.day_count ELSE 0 END)';
const GRANTED = `GREATEST(0, LEAST(t.n, t.per_minute - ${MINUTE_USED}, t.per_day - ${DAY_USED}))`;

// One statement counts a whole batch of subjects. UPDATE takes each row's lock and, when another
// instance changed the row meanwhile, evaluates the SET on the newest version (READ COMMITTED), so every
// instance's batches are counted one after another per subject: the limits hold exactly across instances.
const HIT_SQL = `
  UPDATE rate_windows AS w SET
    minute = GREATEST(w.minute, t.minute),
    minute_count = ${MINUTE_USED} + ${GRANTED},
    day = GREATEST(w.day, t.day),
    day_count = ${DAY_USED} + ${GRANTED},
    last_granted = ${GRANTED}
  FROM unnest(?::text[], ?::bigint[], ?::text[], ?::int[], ?::int[], ?::int[]) AS t(subject, minute, day, n, per_minute, per_day)
  WHERE w.subject = t.subject
  RETURNING w.subject, w.minute, w.minute_count AS "minuteCount", w.day, w.day_count AS "dayCount", w.last_granted AS granted`;

const ENSURE_SQL = `
  INSERT INTO rate_windows (subject, minute, minute_count, day, day_count, last_granted)
  SELECT subject, minute, 0, day, 0, 0 FROM unnest(?::text[], ?::bigint[], ?::text[]) AS t(subject, minute, day)
  ON CONFLICT (subject) DO NOTHING`;

const run = (db: Db, hits: readonly RateHits[]) =>
  db.all<RateOutcome>(HIT_SQL, [
    hits.map((h) => h.subject),
    hits.map((h) => h.minute),
    hits.map((h) => h.day),
    hits.map((h) => h.n),
    hits.map((h) => h.perMinute),
    hits.map((h) => h.perDay ?? UNLIMITED),
  ]);

/**
 * Counts every subject's requests in one statement, granting each subject what both its windows still
 * hold; subjects seen for the first time get their row first. One entry per subject.
 */
export async function hitRateWindows(db: Db, hits: readonly RateHits[]): Promise<RateOutcome[]> {
  const out: RateOutcome[] = [];
  let missing = hits;
  // Normally one pass; a new subject takes two. A third only if pruning removed a row in between.
  for (let pass = 0; pass < 3 && missing.length > 0; pass++) {
    if (pass > 0) await db.run(ENSURE_SQL, [missing.map((h) => h.subject), missing.map((h) => h.minute), missing.map((h) => h.day)]);
    out.push(...(await run(db, missing)));
    const seen = new Set(out.map((o) => o.subject));
    missing = missing.filter((h) => !seen.has(h.subject));
  }
  if (missing.length > 0) throw new Error(`Rate windows could not be counted for ${missing.length} subject(s)`);
  return out;
}

/** The subject's windows as they stand, or undefined when it never made a request. */
export async function peekRateWindow(db: Db, subject: string): Promise<RateWindow | undefined> {
  return db.get<RateWindow>('SELECT minute, minute_count AS "minuteCount", day, day_count AS "dayCount" FROM rate_windows WHERE subject = ?', [subject]);
}

/** Forgets windows whose day is before `day` (they limit nothing any more). */
export async function pruneRateWindows(db: Db, day: string): Promise<number> {
  return db.run('DELETE FROM rate_windows WHERE day < ?', [day]);
}
