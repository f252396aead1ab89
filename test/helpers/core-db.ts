import { loadSqliteDriver } from '../../src/server/storage/sqlite-driver.js';
import { m001Core } from '../../src/server/storage/migrations/001-core.js';
import { userDisabledMigration } from '../../src/server/storage/migrations/next/b-user-disabled.js';
import { createSqliteDb } from '../../src/server/storage/sql/sqlite.js';
import type { Db } from '../../src/server/storage/db.js';

const Database = loadSqliteDriver();

/** An in-memory database with the core tables only: users (with their disabled flag), keys, usage, request counters. */
export function coreDb(): Db {
  const raw = new Database(':memory:');
  raw.pragma('foreign_keys = ON');
  m001Core.up(raw);
  raw.exec(userDisabledMigration.sqlite);
  return createSqliteDb(raw);
}
