import pg from 'pg';
import type { PostgresMigration } from './types.js';
import { p001Initial } from './001-initial.js';
import { p002ScaleOut } from './002-scale-out.js';
import { newerSchemaError } from '../schema-version.js';
import { corporaMigration } from '../next/b-corpora.js';
import { corpusEvaluationsMigration } from '../next/c2-corpus-evaluations.js';

/** Every PostgreSQL migration in order (numbered on their own: PostgreSQL's 1 is SQLite's 1-5). */
export const postgresMigrations: PostgresMigration[] = [
  p001Initial,
  p002ScaleOut,
  { version: 3, name: corporaMigration.name, up: async (c) => void (await c.query(corporaMigration.postgres)) }, // TEMP-REGISTRATION (lead converts at merge)
  { version: 4, name: corpusEvaluationsMigration.name, up: async (c) => void (await c.query(corpusEvaluationsMigration.postgres)) }, // TEMP-REGISTRATION (lead converts at merge)
];

/** The advisory lock every instance takes to migrate: only one migrates, the others wait and find it done. */
export const MIGRATION_LOCK = 7_723_001;

/**
 * Brings the database to the newest schema this voxctl knows, under a session advisory lock so instances
 * started together migrate once; refuses a database a newer voxctl has migrated. Returns the version.
 */
export async function migratePostgres(connectionString: string, migrations = postgresMigrations): Promise<number> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS voxctl_schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM voxctl_schema_migrations');
    const current = rows[0]?.v ?? 0;
    const known = migrations.length;
    if (current > known) throw newerSchemaError(current, known);
    for (const m of migrations) {
      if (m.version <= current) continue;
      await client.query('BEGIN');
      try {
        await m.up(client);
        await client.query('INSERT INTO voxctl_schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    }
    return Math.max(current, known);
  } finally {
    // Closing the session releases the advisory lock too, also when a migration failed.
    await client.end();
  }
}
