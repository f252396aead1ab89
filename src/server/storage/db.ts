import { existsSync } from 'node:fs';
import { inspectSchema, migrateSchema, MigrationChangedError, unmigratedStatus, type SchemaStatus } from './migrations/runner.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { makeDatabaseFilesPrivate } from './private-files.js';
import { createSqliteDb } from './sql/sqlite.js';
import type { Db } from './sql/types.js';
import { redactDatabaseUrl } from '../../shared/database-url.js';

export type { Db, Queryable, Dialect, SqlParam, SqlParams } from './sql/types.js';
export type { SchemaStatus, AppliedMigration } from './migrations/runner.js';
export { MigrationChangedError } from './migrations/runner.js';

/** The PostgreSQL seam and migrator, loaded when a database URL is used: a SQLite server never holds `pg`. */
async function postgres() {
  const [{ createPostgresDb }, { migratePostgres }] = await Promise.all([import('./sql/postgres.js'), import('./migrations/migrate-postgres.js')]);
  return { createPostgresDb, migratePostgres };
}

/** Opens (or creates) the SQLite file with the pragmas the service relies on, migrates it, and wraps it in the seam. */
export async function openSqliteDatabase(file: string): Promise<Db> {
  const db = openSqliteFile(file);
  try {
    await migrateSchema(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

function openSqliteFile(file: string): Db {
  makeDatabaseFilesPrivate(file);
  const Driver = loadSqliteDriver();
  const raw = new Driver(file);
  // WAL lets readers run while the job runner writes; NORMAL sync is durable at checkpoint in WAL mode.
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
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
  const { createPostgresDb, migratePostgres } = await postgres();
  try {
    await migratePostgres(target.url);
  } catch (err) {
    // Said as DESIGN §14.1 words it, whatever the database.
    if (err instanceof MigrationChangedError) throw err;
    throw new Error(`PostgreSQL at ${redactDatabaseUrl(target.url)}: ${maskPassword(err, target.url)}`, { cause: err });
  }
  return createPostgresDb({
    connectionString: target.url,
    ...(target.onIdleError ? { onIdleError: target.onIdleError } : {}),
    ...(target.replayTransactions ? { replayTransactions: true } : {}),
  });
}

/** What `voxctl admin schema` shows: applied and pending migrations, read without changing anything. */
export async function inspectDatabaseSchema(target: DatabaseTarget): Promise<SchemaStatus> {
  if ('file' in target) {
    // No database yet: everything is pending (and the file is not created by looking).
    if (!existsSync(target.file)) return unmigratedStatus('sqlite');
    const db = openSqliteFile(target.file);
    try {
      return await inspectSchema(db);
    } finally {
      await db.close();
    }
  }
  const { createPostgresDb } = await postgres();
  const db = createPostgresDb({ connectionString: target.url, max: 1 });
  try {
    return await inspectSchema(db);
  } catch (err) {
    throw new Error(`PostgreSQL at ${redactDatabaseUrl(target.url)}: ${maskPassword(err, target.url)}`, { cause: err });
  } finally {
    await db.close();
  }
}

/** `voxctl admin migrate`: applies the pending migrations without starting a server; resolves to the new status. */
export async function migrateDatabase(target: DatabaseTarget): Promise<SchemaStatus> {
  if ('file' in target) {
    const db = openSqliteFile(target.file);
    try {
      return await migrateSchema(db);
    } finally {
      await db.close();
    }
  }
  const { migratePostgres } = await postgres();
  try {
    return await migratePostgres(target.url);
  } catch (err) {
    if (err instanceof MigrationChangedError) throw err;
    throw new Error(`PostgreSQL at ${redactDatabaseUrl(target.url)}: ${maskPassword(err, target.url)}`, { cause: err });
  }
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
