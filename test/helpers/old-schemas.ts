import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadSqliteDriver } from '../../src/server/storage/sqlite-driver.js';
import { p001Initial } from '../../src/server/storage/migrations/postgres/001-initial.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/old-schemas/', import.meta.url));

/** The key of the pro user in the SQLite fixture of 0859a53. */
export const OLD_SQLITE_KEY = `vox_${'old'.repeat(13)}o`;

/** Writes the data dir database of commit 0859a53 (SQLite schema 5, one user) to `file`. */
export function writeOldSqliteDatabase(file: string): void {
  const Driver = loadSqliteDriver();
  const raw = new Driver(file);
  try {
    raw.exec(gunzipSync(readFileSync(`${FIXTURES}sqlite/voxctl-v5@0859a53.sql.gz`)).toString('utf8'));
  } finally {
    raw.close();
  }
}

/** Commits whose text of PostgreSQL migration 2 is kept as a fixture. */
export const OLD_POSTGRES_002 = ['229f8ec', '21aa4a4', '43e9102'] as const;

/**
 * Builds on an empty PostgreSQL database what a deployment at `commit` had: migration 1 (never edited),
 * migration 2 as that commit's text, and the tracking table as the runner of that time made it (no
 * `checksum` column).
 */
export async function buildOldPostgresDatabase(url: string, commit: (typeof OLD_POSTGRES_002)[number]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE voxctl_schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await client.query('BEGIN');
    await p001Initial.up(client);
    await client.query("INSERT INTO voxctl_schema_migrations (version, name) VALUES (1, 'initial')");
    await client.query(readFileSync(`${FIXTURES}postgres/002-scale-out@${commit}.sql`, 'utf8'));
    await client.query("INSERT INTO voxctl_schema_migrations (version, name) VALUES (2, 'scale-out')");
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}
