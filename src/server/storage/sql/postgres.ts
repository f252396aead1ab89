import pg from 'pg';
import { orderedParams, toPositional, type PositionalSql } from './placeholders.js';
import { createTransactionContext } from './transaction-context.js';
import type { Db, Isolation, SqlParams } from './types.js';
import { DomainError } from '../../../shared/errors.js';

/** Error codes PostgreSQL answers when a transaction lost a race and may simply be run again. */
const RETRYABLE = new Set(['40001', '40P01']);
/** A statement that only reads. */
const READ = /^\s*SELECT\b/i;

/** How many times a transaction that lost a serialisation race is run again before the error is let through. */
const MAX_ATTEMPTS = 30;

// 64-bit integers (COUNT, SUM, identity columns) and NUMERIC arrive as strings by default; every such value
// this service stores is far below 2^53, so numbers keep repositories identical across dialects.
const parseNumber = (v: string): number => Number(v);
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return parseNumber;
    return pg.types.getTypeParser(oid, format);
  },
};

interface Prepared extends PositionalSql {
  /** Name of the server-side prepared statement (parsed once per connection). */
  name: string;
}

/** Options of the PostgreSQL seam. */
export interface PostgresDbOptions {
  connectionString: string;
  /** Connections in the pool (requests and workers share them). */
  max?: number;
  /** Told about a connection that failed while idle in the pool (the pool replaces it). */
  onIdleError?: (err: Error) => void;
  /**
   * Test option: every outermost transaction body is run twice — once rolled back, then for real — as a
   * serialisation retry may run it at any time. A body with an effect outside the database (a file, an
   * engine call, an in-memory cache or counter changed before the commit) then shows it in the test
   * pass that turns this on; SQLite, which never runs a body twice, cannot.
   */
  replayTransactions?: boolean;
}

/**
 * The async storage seam over a `pg` pool. SQL keeps SQLite's `?`/`@name` placeholders (rewritten once per
 * statement and run as named prepared statements). Transactions are SERIALIZABLE unless told otherwise and
 * are run again when PostgreSQL reports a serialisation failure or deadlock — the same "as if one at a time"
 * semantics as SQLite's single writer, without reasoning about each read-then-write.
 */
export function createPostgresDb(options: PostgresDbOptions): Db & { readonly pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.max ?? 10, types });
  pool.on('error', (err) => options.onIdleError?.(err));
  const statements = new Map<string, Prepared>();
  const transactions = createTransactionContext<pg.PoolClient>();
  let closed = false;

  const prepare = (sql: string): Prepared => {
    let p = statements.get(sql);
    if (!p) {
      p = { ...toPositional(sql), name: `vox${statements.size + 1}` };
      statements.set(sql, p);
    }
    return p;
  };
  const query = async (sql: string, params?: SqlParams): Promise<pg.QueryResult> => {
    const p = prepare(sql);
    const q = { name: p.name, text: p.text, values: orderedParams(p, params) };
    if (q.values.some((v) => typeof v === 'string' && v.includes('\u0000'))) {
      // PostgreSQL text cannot hold U+0000 (SQLite can). No stored value contains one, so a read looking for
      // such a value finds nothing — as it would on SQLite; a write of one is refused as bad input.
      if (READ.test(p.text)) return { rows: [], rowCount: 0, fields: [], command: 'SELECT', oid: 0 };
      throw new DomainError('validation_failed', 'Text must not contain NUL (U+0000) characters');
    }
    const client = transactions.current();
    return client ? client.query(q) : pool.query(q);
  };
  /**
   * A pooled client held for one transaction. PostgreSQL going away between two of its queries (a shutdown,
   * a failover: the server says so on every open connection) reaches the client as an `error` event that no
   * query is waiting for, and pg-pool listens only on idle clients: unheard, it would end the process. It is
   * heard here; the transaction's next query fails like any lost connection, and the client is discarded.
   */
  const checkout = async (): Promise<{ client: pg.PoolClient; release(broken: boolean): void }> => {
    const client = await pool.connect();
    let lost = false;
    const onError = () => {
      lost = true;
    };
    client.on('error', onError);
    return {
      client,
      release(broken) {
        client.off('error', onError);
        client.release(broken || lost);
      },
    };
  };
  const firstColumn = (r: pg.QueryResult): unknown[] => {
    const field = r.fields[0]?.name;
    return field === undefined ? [] : r.rows.map((row: Record<string, unknown>) => row[field]);
  };

  /** The replay option's first run of a body: always rolled back, its result and error dropped (the real run decides). */
  const rehearse = async (fn: () => Promise<unknown>, level: string): Promise<void> => {
    const { client, release } = await checkout();
    let broken = false;
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${level}`);
      await transactions.run(client, fn);
    } catch {
      // As after a lost serialisation race: the body runs again below, and its error, if any, is the one seen.
    } finally {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      release(broken);
    }
  };

  const db: Db & { readonly pool: pg.Pool } = {
    dialect: 'postgres',
    pool,
    all: async <T>(sql: string, params?: SqlParams) => (await query(sql, params)).rows as T[],
    get: async <T>(sql: string, params?: SqlParams) => (await query(sql, params)).rows[0] as T | undefined,
    value: async <T>(sql: string, params?: SqlParams) => firstColumn(await query(sql, params))[0] as T | undefined,
    column: async <T>(sql: string, params?: SqlParams) => firstColumn(await query(sql, params)) as T[],
    run: async (sql: string, params?: SqlParams) => (await query(sql, params)).rowCount ?? 0,
    async exec(sql: string) {
      const client = transactions.current();
      await (client ? client.query(sql) : pool.query(sql));
    },
    inTransaction: () => transactions.current() !== undefined,
    async transaction<T>(fn: () => Promise<T>, opts: { isolation?: Isolation } = {}): Promise<T> {
      if (transactions.current()) return fn();
      const level = opts.isolation === 'read committed' ? 'READ COMMITTED' : 'SERIALIZABLE';
      if (options.replayTransactions) await rehearse(fn, level);
      for (let attempt = 1; ; attempt++) {
        const { client, release } = await checkout();
        let broken = false;
        try {
          await client.query(`BEGIN ISOLATION LEVEL ${level}`);
          const out = await transactions.run(client, fn);
          await client.query('COMMIT');
          return out;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {
            broken = true;
          });
          const code = (err as { code?: string }).code;
          if (!code || !RETRYABLE.has(code) || attempt >= MAX_ATTEMPTS) throw err;
        } finally {
          release(broken);
        }
        // Back off a little, with jitter, so the transactions that collided do not collide again in step.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
  return db;
}
