import { migrate } from './migrations/index.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { makeDatabaseFilesPrivate } from './private-files.js';
import { createSqliteDb } from './sql/sqlite.js';
import type { Db } from './sql/types.js';

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
