import { migrate } from './migrations/index.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { makeDatabaseFilesPrivate } from './private-files.js';
import { createSqliteDb } from './sql/sqlite.js';
import type { Db } from './sql/types.js';
import { createPostgresDb } from './sql/postgres.js';
import { migratePostgres } from './migrations/postgres/index.js';
import { redactDatabaseUrl } from '../../shared/database-url.js';

export type { Db, Queryable, Dialect, SqlParam, SqlParams } from './sql/types.js';

/** Opens (or creates) the SQLite file with the pragmas the service relies on, migrates it, and wraps it in the seam. */
export function openSqliteDatabase(file: string): Db {
  makeDatabaseFilesPrivate(file);
  const Driver = loadSqliteDriver();
  const raw = new Driver(file);
  // WAL lets readers run while the job runner writes; NORMAL sync is durable at checkpoint in WAL mode.
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  try {
    migrate(raw);
  } catch (err) {
    raw.close();
    throw err;
  }
  return createSqliteDb(raw);
}

/** Where the service keeps its data: a SQLite file, or a PostgreSQL shared by several instances. */
export type DatabaseTarget = { file: string } | { url: string; onIdleError?: (err: Error) => void; replayTransactions?: boolean };

/**
 * Opens the database the options name and migrates it. A PostgreSQL failure is reported with the URL's
 * password masked (pg's own messages never carry it; ours must not either).
 */
export async function openDatabase(target: DatabaseTarget): Promise<Db> {
  if ('file' in target) return openSqliteDatabase(target.file);
  try {
    await migratePostgres(target.url);
  } catch (err) {
    throw new Error(`PostgreSQL at ${redactDatabaseUrl(target.url)}: ${maskPassword(err, target.url)}`, { cause: err });
  }
  return createPostgresDb({
    connectionString: target.url,
    ...(target.onIdleError ? { onIdleError: target.onIdleError } : {}),
    ...(target.replayTransactions ? { replayTransactions: true } : {}),
  });
}

function maskPassword(err: unknown, url: string): string {
  const message = err instanceof Error ? err.message : String(err);
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    // Not parsable: nothing to mask beyond what redactDatabaseUrl did.
  }
  return password ? message.split(password).join('***') : message;
}
