import type BetterSqlite3 from 'better-sqlite3';
import { createGate } from './gate.js';
import { createTransactionContext } from './transaction-context.js';
import type { Db, SqlParams } from './types.js';

type Statement = BetterSqlite3.Statement;
type Mode = 'rows' | 'pluck';

/**
 * The async storage seam over one better-sqlite3 connection. The driver is synchronous, so each call
 * finishes before its promise settles; the gate only matters while a transaction spans several awaits.
 * Statements are compiled once per connection: preparing costs more than running a key lookup.
 */
export function createSqliteDb(raw: BetterSqlite3.Database): Db & { readonly raw: BetterSqlite3.Database } {
  const statements = new Map<string, Statement>();
  const gate = createGate();
  const inTx = createTransactionContext<true>();
  let closed = false;

  const statement = (sql: string, mode: Mode): Statement => {
    const key = mode === 'pluck' ? `\u0000${sql}` : sql;
    let stmt = statements.get(key);
    if (!stmt) {
      stmt = raw.prepare(sql);
      if (mode === 'pluck') stmt.pluck();
      statements.set(key, stmt);
    }
    return stmt;
  };
  const bind = (params: SqlParams | undefined): unknown[] => (params === undefined ? [] : Array.isArray(params) ? params : [params]);

  // Outside a transaction a query runs at once unless another context's transaction is open.
  const whenFree = <T>(work: () => T): Promise<T> => {
    if (!gate.held || inTx.current()) {
      try {
        return Promise.resolve(work());
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    return gate.idle().then(() => whenFree(work));
  };

  const db: Db & { readonly raw: BetterSqlite3.Database } = {
    dialect: 'sqlite',
    raw,
    all: <T>(sql: string, params?: SqlParams) => whenFree(() => statement(sql, 'rows').all(...bind(params)) as T[]),
    get: <T>(sql: string, params?: SqlParams) => whenFree(() => statement(sql, 'rows').get(...bind(params)) as T | undefined),
    value: <T>(sql: string, params?: SqlParams) => whenFree(() => statement(sql, 'pluck').get(...bind(params)) as T | undefined),
    column: <T>(sql: string, params?: SqlParams) => whenFree(() => statement(sql, 'pluck').all(...bind(params)) as T[]),
    run: (sql: string, params?: SqlParams) => whenFree(() => statement(sql, 'rows').run(...bind(params)).changes),
    exec: (sql: string) => whenFree(() => void raw.exec(sql)),
    inTransaction: () => inTx.current() === true,
    valueNow: <T>(sql: string, params?: SqlParams) =>
      !gate.held || inTx.current() ? (statement(sql, 'pluck').get(...bind(params)) as T | undefined) : undefined,
    async transaction<T>(fn: () => Promise<T>): Promise<T> {
      if (inTx.current()) return fn();
      await gate.acquire();
      try {
        return await inTx.run(true, async () => {
          // IMMEDIATE takes the write lock up front, so a read-then-write is atomic against other processes too.
          statement('BEGIN IMMEDIATE', 'rows').run();
          try {
            const out = await fn();
            statement('COMMIT', 'rows').run();
            return out;
          } catch (err) {
            if (raw.inTransaction) statement('ROLLBACK', 'rows').run();
            throw err;
          }
        });
      } finally {
        gate.release();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await gate.idle();
      raw.close();
    },
  };
  return db;
}
