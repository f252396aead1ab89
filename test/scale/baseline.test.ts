import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import type { Db } from '../../src/server/storage/sql/types.js';
import { migrateSchema } from '../../src/server/storage/migrations/runner.js';
import { knownMigrations, type KnownMigration } from '../../src/server/storage/migrations/known.js';
import { readBaseline } from '../../src/server/storage/migrations/baseline.js';
import { postgresBinDir } from '../helpers/postgres-cluster.js';
import { createTestDatabase } from '../helpers/postgres.js';

// A new PostgreSQL database is made from one baseline script (issue 32 item 3); pg_dump must find it
// exactly as replaying every migration leaves it, and the rows the same.

/** pg_dump's schema of a database, without the per-run `\restrict` key newer pg_dump versions print. */
function schemaDump(url: string): string {
  const bin = postgresBinDir();
  const text = execFileSync(bin ? join(bin, 'pg_dump') : 'pg_dump', ['--schema-only', '--no-owner', '--no-privileges', url], { encoding: 'utf8' });
  return text.replace(/^\\(un)?restrict .*$/gm, '');
}

async function rows(db: Db): Promise<Record<string, unknown[]>> {
  const tables = await db.column<string>("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name");
  const out: Record<string, unknown[]> = {};
  for (const t of tables) out[t] = (await db.all<Record<string, unknown>>(`SELECT * FROM ${t} ORDER BY 1`)).map(({ applied_at: _when, ...rest }) => rest);
  return out;
}

async function withDatabase<T>(fn: (db: Db, url: string) => Promise<T>): Promise<T> {
  const t = await createTestDatabase({ fromTemplate: false });
  const db = createPostgresDb({ connectionString: t.url, max: 1 });
  try {
    return await fn(db, t.url);
  } finally {
    await db.close();
    await t.drop();
  }
}

describe('the PostgreSQL baseline', () => {
  it('makes a new database exactly what replaying every migration makes (pg_dump of the schema, rows, records)', async () => {
    const replayed = await withDatabase(async (db, url) => ({ status: await migrateSchema(db, undefined, { baseline: null }), dump: schemaDump(url), rows: await rows(db) }));
    const based = await withDatabase(async (db, url) => ({ status: await migrateSchema(db), dump: schemaDump(url), rows: await rows(db) }));
    expect(based.status.applied.map((m) => [m.version, m.name, m.checksum, m.compatible])).toEqual(replayed.status.applied.map((m) => [m.version, m.name, m.checksum, m.compatible]));
    expect(based.status.pending).toEqual([]);
    expect(based.dump).toBe(replayed.dump);
    expect(Object.keys(based.rows)).toEqual(Object.keys(replayed.rows));
    for (const table of Object.keys(replayed.rows)) expect({ table, rows: based.rows[table] }).toEqual({ table, rows: replayed.rows[table] });
    expect(based.rows.speakers).toHaveLength(2532);
  });

  it('is what a new database is made from: none of the migrations it stands for runs', async () => {
    expect(readBaseline('postgres')?.version).toBe((await knownMigrations('postgres')).length);
    const refuse = (m: KnownMigration): KnownMigration => ({ ...m, apply: () => Promise.reject(new Error(`migration ${m.version} ran`)) });
    await withDatabase(async (db) => {
      const status = await migrateSchema(db, undefined, { known: (await knownMigrations('postgres')).map(refuse) });
      expect(status.pending).toEqual([]);
      expect(await db.value('SELECT epoch FROM cache_epoch')).toBe(0);
    });
  });
});
