import type Database from 'better-sqlite3';
import type pg from 'pg';
import type { Db, SqlParams } from '../sql/types.js';
import type { Migration } from './types.js';
import type { PostgresMigration } from './postgres/types.js';

/** One statement a legacy migration runs: `exec` text, or a prepared statement with its parameters. */
export interface SqlCall {
  sql: string;
  params?: SqlParams;
}

/**
 * The statements a legacy SQLite migration runs, recorded by running its `up` on a stand-in for the
 * driver. Legacy migrations are code, not text: recording what they execute gives them a checksum that
 * does not depend on how the TypeScript was compiled, and lets one runner replay them through the seam.
 */
export function recordSqliteMigration(m: Migration): SqlCall[] {
  const calls: SqlCall[] = [];
  const stand = {
    exec(sql: string) {
      calls.push({ sql });
      return stand;
    },
    prepare(sql: string) {
      return {
        run(params: SqlParams) {
          calls.push({ sql, params });
          return { changes: 1, lastInsertRowid: 0 };
        },
      };
    },
  };
  m.up(stand as unknown as Database.Database);
  return calls;
}

/** The statements a legacy PostgreSQL migration runs (`client.query` calls), recorded as for SQLite. */
export async function recordPostgresMigration(m: PostgresMigration): Promise<SqlCall[]> {
  const calls: SqlCall[] = [];
  const stand = {
    query(sql: string, params?: SqlParams) {
      calls.push(params === undefined ? { sql } : { sql, params });
      return Promise.resolve({ rows: [], rowCount: 0 });
    },
  };
  await m.up(stand as unknown as pg.ClientBase);
  return calls;
}

/** Runs recorded statements through the seam (inside the caller's transaction). */
export async function replay(db: Db, calls: readonly SqlCall[]): Promise<void> {
  // PostgreSQL statements keep their `$n` placeholders: the seam rewrites only `?` and `@name`.
  for (const c of calls) {
    if (c.params === undefined) await db.exec(c.sql);
    else await db.run(c.sql, c.params);
  }
}

/**
 * The text a legacy migration's checksum is taken of: its SQL, each prepared statement once followed by
 * one line per row of parameters (keys sorted). A migration that is one statement is just its SQL, so its
 * checksum is the SHA-256 of the text in the file, like a migration of the new format.
 */
export function canonicalText(calls: readonly SqlCall[]): string {
  const lines: string[] = [];
  let previous: string | undefined;
  for (const c of calls) {
    if (c.sql !== previous || c.params === undefined) lines.push(c.sql);
    if (c.params !== undefined) lines.push(`-- params ${stableJson(c.params)}`);
    previous = c.params === undefined ? undefined : c.sql;
  }
  return lines.join('\n');
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString('base64') };
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return typeof v === 'bigint' ? v.toString() : v;
  });
}
