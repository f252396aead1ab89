import type Database from 'better-sqlite3';
import { migrate } from './migrations/index.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { makeDatabaseFilesPrivate } from './private-files.js';

/** The database handle every repository takes as its first argument. */
export type Db = Database.Database;

/** Opens (or creates) the SQLite file with the pragmas the service relies on, then migrates it. */
export function openDatabase(file: string): Db {
  makeDatabaseFilesPrivate(file);
  const Driver = loadSqliteDriver();
  const db = new Driver(file);
  // WAL lets readers run while the job runner writes; NORMAL sync is durable at checkpoint in WAL mode.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/** Runs `fn` in one IMMEDIATE transaction (write lock taken up front, so read-then-write is atomic). */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}
