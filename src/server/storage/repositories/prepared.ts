import type { Statement } from 'better-sqlite3';
import type { Db } from '../db.js';

// Statements are compiled once per database handle: preparing costs more than running a key lookup.
const cache = new WeakMap<Db, Map<string, Statement>>();

/** The prepared statement for `sql` on `db`, compiled on first use and reused after. */
export function prepared(db: Db, sql: string): Statement {
  let byDb = cache.get(db);
  if (!byDb) {
    byDb = new Map();
    cache.set(db, byDb);
  }
  let stmt = byDb.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    byDb.set(sql, stmt);
  }
  return stmt;
}
