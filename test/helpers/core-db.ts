import { loadSqliteDriver } from '../../src/server/storage/sqlite-driver.js';
import { m001Core } from '../../src/server/storage/migrations/001-core.js';
import { createSqliteDb } from '../../src/server/storage/sql/sqlite.js';
import type { Db } from '../../src/server/storage/db.js';

const Database = loadSqliteDriver();

/** An in-memory database with only the core migration: users, keys, usage, request counters. */
export function coreDb(): Db {
  const raw = new Database(':memory:');
  raw.pragma('foreign_keys = ON');
  m001Core.up(raw);
  return createSqliteDb(raw);
}
