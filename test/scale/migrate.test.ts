import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migratePostgres } from '../../src/server/storage/migrations/migrate-postgres.js';
import { knownMigrations } from '../../src/server/storage/migrations/known.js';
import { createTestDatabase } from '../helpers/postgres.js';

const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const d of drops.splice(0)) await d();
});

async function empty(): Promise<string> {
  const db = await createTestDatabase({ fromTemplate: false });
  drops.push(db.drop);
  return db.url;
}

async function rows<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

describe('PostgreSQL migrations (DESIGN §9.5)', () => {
  it('migrates an empty database once when several instances start together', async () => {
    const url = await empty();
    const known = await knownMigrations('postgres');
    const statuses = await Promise.all(Array.from({ length: 4 }, () => migratePostgres(url)));
    for (const s of statuses) expect(s.pending).toEqual([]);
    const applied = await rows<{ version: number; checksum: string }>(url, 'SELECT version, checksum FROM voxctl_schema_migrations ORDER BY version');
    expect(applied).toEqual(known.map((m) => ({ version: m.version, checksum: m.checksum })));
    const [speakers] = await rows<{ n: string }>(url, 'SELECT count(*) AS n FROM speakers');
    expect(Number(speakers!.n)).toBe(2532);
  });

  it('refuses a database a newer voxctl migrated, naming both versions', async () => {
    const url = await empty();
    await migratePostgres(url);
    const known = (await knownMigrations('postgres')).length;
    await rows(url, `INSERT INTO voxctl_schema_migrations (version, name) VALUES (${known + 1}, 'from-the-future')`);
    await expect(migratePostgres(url)).rejects.toThrow(
      `Database schema version ${known + 1} is newer than this voxctl knows (${known}); upgrade voxctl or use another database`,
    );
  });
});
