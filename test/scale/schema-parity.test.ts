import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/server/storage/db.js';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import type { Db } from '../../src/server/storage/sql/types.js';
import { createTestDatabase } from '../helpers/postgres.js';

// The schema both dialects reach after every migration, compared (issue 18.3). Written down here are the
// only differences allowed, each with its reason; anything else — a column, type, nullability or index
// that one dialect has and the other lacks — fails.

/** Tables only PostgreSQL has: state several instances share, which one SQLite instance keeps in its process or data dir. */
const POSTGRES_ONLY = ['cache_epoch', 'rate_windows', 'server_settings'];
/** The runner's own table: PostgreSQL keeps the TIMESTAMPTZ and nullable `checksum` of databases made by earlier releases. */
const IGNORED = ['voxctl_schema_migrations'];

interface Column {
  name: string;
  type: string;
  notNull: boolean;
}
interface Table {
  columns: Column[];
  primaryKey: string[];
  unique: string[][];
  /** name → `UNIQUE? (key, …)` */
  indexes: Record<string, string>;
}
type Schema = Record<string, Table>;

// SQLite's declared type → the PostgreSQL types that store the same values.
const TYPE: Record<string, string> = { TEXT: 'text', INTEGER: 'int', REAL: 'float', BLOB: 'bytes' };
const PG_TYPE: Record<string, string> = { text: 'text', integer: 'int', bigint: 'int', 'double precision': 'float', bytea: 'bytes' };

async function sqliteSchema(db: Db): Promise<Schema> {
  const schema: Schema = {};
  const tables = await db.column<string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  for (const t of tables) {
    const cols = await db.all<{ name: string; type: string; notnull: number; pk: number }>('SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid', [t]);
    const list = await db.all<{ name: string; unique: number; origin: string }>('SELECT name, "unique", origin FROM pragma_index_list(?)', [t]);
    const keys = async (index: string) =>
      (await db.all<{ name: string | null; coll: string; key: number }>('SELECT name, coll, "key" FROM pragma_index_xinfo(?) ORDER BY seqno', [index]))
        .filter((k) => k.key === 1)
        .map((k) => (k.coll === 'NOCASE' ? `lower(${k.name})` : String(k.name)));
    const indexes: Record<string, string> = {};
    const unique: string[][] = [];
    for (const i of list) {
      if (i.origin === 'c') indexes[i.name] = `${i.unique ? 'UNIQUE ' : ''}(${(await keys(i.name)).join(', ')})`;
      else if (i.origin === 'u') unique.push(await keys(i.name));
    }
    schema[t] = {
      // A SQLite primary key column may hold NULL unless declared NOT NULL; none of ours is ever written NULL.
      columns: cols.map((c) => ({ name: c.name, type: TYPE[c.type] ?? `sqlite:${c.type}`, notNull: c.notnull === 1 || c.pk > 0 })),
      primaryKey: cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
      unique: unique.sort(),
      indexes,
    };
  }
  return schema;
}

async function postgresSchema(db: Db): Promise<Schema> {
  const schema: Schema = {};
  const tables = await db.column<string>("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name");
  for (const t of tables) {
    const cols = await db.all<{ name: string; type: string; nullable: string }>(
      'SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position',
      [t],
    );
    const idx = await db.all<{ name: string; unique: boolean; primary: boolean; constraint: string | null; keys: string[] }>(
      `SELECT c.relname AS name, i.indisunique AS "unique", i.indisprimary AS "primary", con.contype AS "constraint",
              ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) AS k) AS keys
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid
        WHERE i.indrelid = ?::regclass`,
      [t],
    );
    // SQLite indexes end with the implicit rowid; PostgreSQL spells it out on the tables that order by it.
    const keys = (k: string[]) => (k.at(-1) === 'rowid' ? k.slice(0, -1) : k);
    const indexes: Record<string, string> = {};
    const unique: string[][] = [];
    let primaryKey: string[] = [];
    for (const i of idx) {
      if (i.primary) primaryKey = i.keys;
      else if (i.constraint === 'u') unique.push(i.keys);
      else indexes[i.name] = `${i.unique ? 'UNIQUE ' : ''}(${keys(i.keys).join(', ')})`;
    }
    schema[t] = {
      // `rowid`: PostgreSQL's identity column standing for SQLite's implicit rowid (insertion order).
      columns: cols.filter((c) => c.name !== 'rowid').map((c) => ({ name: c.name, type: PG_TYPE[c.type] ?? `pg:${c.type}`, notNull: c.nullable === 'NO' })),
      primaryKey,
      unique: unique.sort(),
      indexes,
    };
  }
  return schema;
}

const dir = mkdtempSync(join(tmpdir(), 'voxctl-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('one schema on SQLite and PostgreSQL (issue 18.3)', () => {
  it('after every migration, both have the same tables, columns, types, nullability, keys and indexes', async () => {
    const sqlite = await openSqliteDatabase(join(dir, 'voxctl.db'));
    const pgDb = await createTestDatabase({ fromTemplate: false });
    const { migratePostgres } = await import('../../src/server/storage/migrations/migrate-postgres.js');
    await migratePostgres(pgDb.url);
    const postgres = createPostgresDb({ connectionString: pgDb.url, max: 1 });
    try {
      const lite = await sqliteSchema(sqlite);
      const pgs = await postgresSchema(postgres);
      for (const t of IGNORED) {
        delete lite[t];
        delete pgs[t];
      }
      expect(Object.keys(pgs).filter((t) => !(t in lite))).toEqual(POSTGRES_ONLY);
      for (const t of POSTGRES_ONLY) delete pgs[t];
      expect(Object.keys(lite).sort()).toEqual(Object.keys(pgs).sort());
      expect(Object.keys(lite).length).toBeGreaterThan(20);
      for (const t of Object.keys(lite)) expect({ table: t, ...lite[t] }).toEqual({ table: t, ...pgs[t] });
    } finally {
      await sqlite.close();
      await postgres.close();
      await pgDb.drop();
    }
  });
});
