import pg from 'pg';
import { createPostgresDb } from '../sql/postgres.js';
import { migrateSchema, type SchemaStatus } from './runner.js';

/** The advisory lock every instance takes to migrate: only one migrates, the others wait and find it done. */
export const MIGRATION_LOCK = 7_723_001;

/**
 * Migrates a PostgreSQL database under a session advisory lock, so instances started together migrate
 * once (DESIGN §9.5). The lock lives on a connection of its own for the whole run; the migrations go
 * through the storage seam like every other query. Closing the lock's session releases it, also when a
 * migration failed.
 */
export async function migratePostgres(connectionString: string): Promise<SchemaStatus> {
  const lock = new pg.Client({ connectionString });
  // PostgreSQL going away mid-migration is reported by the migration's own failing query; the lock's session
  // hears it as an event, which unheard would end the process with a bare stack instead.
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const db = createPostgresDb({ connectionString, max: 1 });
    try {
      return await migrateSchema(db);
    } finally {
      await db.close();
    }
  } finally {
    await lock.end();
  }
}
