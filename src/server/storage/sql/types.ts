/** The two databases the service runs on: SQLite (embedded default) and PostgreSQL (scale-out, DESIGN §9). */
export type Dialect = 'sqlite' | 'postgres';

/**
 * A value bound to a placeholder. Booleans are stored as 0/1 integers in both dialects. Arrays are for
 * PostgreSQL only (`unnest(?::text[])`: one statement for many rows).
 */
export type SqlParam = string | number | bigint | null | Buffer | Uint8Array | readonly string[] | readonly number[];

/** Positional (`?`) or named (`@name`) parameters; one statement uses one kind. */
export type SqlParams = readonly SqlParam[] | Readonly<Record<string, SqlParam | undefined>>;

/**
 * What a repository runs SQL through: the database or, inside `Db.transaction`, the transaction (the
 * database handle itself routes to the open transaction of the calling async context, so a service never
 * threads a transaction object through). SQL is written once with `?`/`@name` placeholders; the PostgreSQL
 * implementation rewrites them to `$n`.
 */
export interface Queryable {
  readonly dialect: Dialect;
  /** Every row of a query. */
  all<T>(sql: string, params?: SqlParams): Promise<T[]>;
  /** The first row, or undefined. */
  get<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /** The first column of the first row, or undefined. */
  value<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /** The first column of every row. */
  column<T>(sql: string, params?: SqlParams): Promise<T[]>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: SqlParams): Promise<number>;
}

/** Isolation of a transaction on PostgreSQL (SQLite transactions are always serial). */
export type Isolation = 'serializable' | 'read committed';

/** The database handle every repository and service takes. */
export interface Db extends Queryable {
  /**
   * Runs `fn` in one transaction and resolves to its result (rolled back when it throws). Every query of
   * the calling async context — through this handle or any repository given it — runs inside it.
   * SQLite: `BEGIN IMMEDIATE`, other queries of this process wait for it to end. PostgreSQL:
   * `SERIALIZABLE` by default — the same serial semantics as SQLite — and `fn` is run again on a
   * serialisation failure or deadlock, so `fn` must do database work only (no files, no engines, no
   * clock reads that must not repeat); the PostgreSQL test pass runs every body twice to prove it
   * (`replayTransactions`, sql/postgres.ts). A transaction opened inside another joins it.
   */
  transaction<T>(fn: () => Promise<T>, opts?: { isolation?: Isolation }): Promise<T>;
  /** True while the calling async context is inside `transaction`. */
  inTransaction(): boolean;
  /**
   * `value` answered at once, for hot paths that would otherwise pay a promise: only a synchronous driver
   * has it (SQLite). Undefined also while another context's transaction holds the connection — then ask
   * `value`, which waits for it.
   */
  valueNow?<T>(sql: string, params?: SqlParams): T | undefined;
  /** Runs several statements (schema changes) with no parameters. */
  exec(sql: string): Promise<void>;
  /** Closes the connection(s); idempotent. */
  close(): Promise<void>;
}
