import type { Db } from '../../storage/db.js';

/** A row of `usage_periods`. */
export interface UsagePeriodRow {
  user_id: string;
  period_start: string;
  characters_used: number;
}

/** The per-request usage read (`userId, periodStart`), exported for the query-plan test. */
export const CHARACTERS_USED_SQL = 'SELECT characters_used FROM usage_periods WHERE user_id = ? AND period_start = ?';

/** Characters the user used in the period starting `periodStart` (0 when nothing was recorded). */
export async function getCharactersUsed(db: Db, userId: string, periodStart: string): Promise<number> {
  const used = await db.value<number>(CHARACTERS_USED_SQL, [userId, periodStart]);
  return Number(used ?? 0);
}

/** Adds `characters` to the user's period (creating the row on first use). */
export async function addCharactersUsed(db: Db, userId: string, periodStart: string, characters: number): Promise<void> {
  await db.run(
    `INSERT INTO usage_periods (user_id, period_start, characters_used) VALUES (?, ?, ?)
     ON CONFLICT (user_id, period_start) DO UPDATE SET characters_used = usage_periods.characters_used + excluded.characters_used`,
    [userId, periodStart, characters],
  );
}

/** Gives back up to `characters` of the user's period (never below zero). */
export async function subtractCharactersUsed(db: Db, userId: string, periodStart: string, characters: number): Promise<void> {
  // CASE, not SQLite's two-argument max(): the same statement runs on PostgreSQL.
  await db.run(
    'UPDATE usage_periods SET characters_used = CASE WHEN characters_used > @n THEN characters_used - @n ELSE 0 END WHERE user_id = @userId AND period_start = @periodStart',
    { n: characters, userId, periodStart },
  );
}

/** Every recorded period of the user, oldest first (billing invoices). */
export function listUsagePeriods(db: Db, userId: string): Promise<UsagePeriodRow[]> {
  return db.all<UsagePeriodRow>('SELECT * FROM usage_periods WHERE user_id = ? ORDER BY period_start', [userId]);
}
