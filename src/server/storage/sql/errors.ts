/**
 * True when `err` is the database refusing a statement — a constraint, a type, a lock, a full disk — as
 * SQLite's driver (`SqliteError`, codes `SQLITE_…`) or PostgreSQL's server (an ErrorResponse: a
 * five-character SQLSTATE and a severity) reports it. Such a message names tables and constraints: it is
 * logged, never shown to a user (DESIGN §14.10). A connection that could not be made is not one of these.
 */
export function isDatabaseError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code, severity } = err as { code?: unknown; severity?: unknown };
  if (err.name === 'SqliteError' || (typeof code === 'string' && code.startsWith('SQLITE_'))) return true;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}
