import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';
import { createSqliteDb } from '../../../../src/server/storage/sql/sqlite.js';
import type { Db } from '../../../../src/server/storage/sql/types.js';
import { migrateSchema } from '../../../../src/server/storage/migrations/runner.js';
import { knownMigrations, listMigrations, SQL_MIGRATIONS_DIR, type KnownMigration } from '../../../../src/server/storage/migrations/known.js';
import { isSqlFileName } from '../../../../src/server/storage/migrations/sql-file.js';
import { readBaseline } from '../../../../src/server/storage/migrations/baseline.js';

// A new database is made from one baseline script (issue 32 item 3); it must be exactly what replaying
// every migration makes: the same schema text in sqlite_master, the same rows, the same records.
const Driver = loadSqliteDriver();
const open = (): Db => createSqliteDb(new Driver(':memory:'));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Everything a database holds but when its migrations were applied. */
async function dump(db: Db) {
  const schema = await db.all("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name");
  const rows: Record<string, unknown[]> = {};
  for (const { name } of schema.filter((o) => (o as { type: string }).type === 'table') as { name: string }[]) {
    rows[name] = (await db.all<Record<string, unknown>>(`SELECT * FROM ${name} ORDER BY 1`)).map(({ applied_at: _when, ...rest }) => rest);
  }
  return { schema, rows, userVersion: await db.value('PRAGMA user_version') };
}

describe('the SQLite baseline', () => {
  it('makes a new database exactly what replaying every migration makes (schema text, rows, records, user_version)', async () => {
    const [replayed, based] = [open(), open()];
    try {
      const a = await migrateSchema(replayed, undefined, { baseline: null });
      const b = await migrateSchema(based);
      expect(b.applied.map((m) => [m.version, m.name, m.checksum, m.compatible])).toEqual(a.applied.map((m) => [m.version, m.name, m.checksum, m.compatible]));
      expect(b.pending).toEqual([]);
      const [x, y] = [await dump(replayed), await dump(based)];
      expect(Object.keys(y.rows)).toEqual(Object.keys(x.rows));
      expect(y.schema).toEqual(x.schema);
      for (const table of Object.keys(x.rows)) expect({ table, rows: y.rows[table] }).toEqual({ table, rows: x.rows[table] });
      expect(y.userVersion).toBe(x.userVersion);
      expect((y.rows.speakers ?? []).length).toBe(2532);
    } finally {
      await replayed.close();
      await based.close();
    }
  });

  it('stands for every migration of this build (regenerate it with scripts/migration-baseline.mjs after adding one)', async () => {
    expect(readBaseline('sqlite')?.version).toBe((await knownMigrations('sqlite')).length);
  });

  it('is what a new database is made from: none of the migrations it stands for runs', async () => {
    const refuse = (m: KnownMigration): KnownMigration => ({ ...m, apply: () => Promise.reject(new Error(`migration ${m.version} ran`)) });
    const db = open();
    try {
      const status = await migrateSchema(db, undefined, { known: (await knownMigrations('sqlite')).map(refuse) });
      expect(status.pending).toEqual([]);
      expect(await db.value('SELECT count(*) FROM speakers')).toBe(2532);
    } finally {
      await db.close();
    }
  });

  it('is followed by the migrations after it, which run as usual', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-sql-migrations-'));
    dirs.push(dir);
    // The published files first (the baseline stands for them), then one more.
    const published = readdirSync(SQL_MIGRATIONS_DIR).filter(isSqlFileName).sort();
    for (const f of published) copyFileSync(new URL(f, SQL_MIGRATIONS_DIR), join(dir, f));
    writeFileSync(
      join(dir, `${String(published.length + 1).padStart(3, '0')}-notes.sql`),
      ['-- compatible: yes', 'ALTER TABLE users ADD COLUMN note TEXT;', '-- sqlite:', 'ALTER TABLE users ADD COLUMN weight REAL;', '-- postgres:', 'ALTER TABLE users ADD COLUMN weight DOUBLE PRECISION;', '-- end', ''].join('\n'),
    );
    const known = await listMigrations('sqlite', pathToFileURL(`${dir}/`));
    const baseline = readBaseline('sqlite')!;
    expect(known.map((m) => m.version).at(-1)).toBe(baseline.version + 1);
    const db = open();
    try {
      const status = await migrateSchema(db, undefined, { known });
      expect(status.pending).toEqual([]);
      expect(status.applied.at(-1)).toMatchObject({ version: baseline.version + 1, name: 'notes', checksum: 'ok', compatible: true });
      expect(await db.column("SELECT name || ' ' || type FROM pragma_table_info('users') WHERE name IN ('note', 'weight') ORDER BY cid")).toEqual(['note TEXT', 'weight REAL']);
      expect(await db.value('PRAGMA user_version')).toBe(baseline.version + 1);
    } finally {
      await db.close();
    }
  });
});
