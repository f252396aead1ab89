import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteDatabase, type Db } from '../../src/server/storage/db.js';
import { TEMP_PREFIX } from '../../src/server/storage/blobs/filesystem.js';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import { backendFor, testBackend } from './postgres.js';

/**
 * A second handle on the database a test server of `dataDir` uses — the data dir's SQLite file, or its
 * PostgreSQL database on the postgres project — for tests that look behind the API (crash tests).
 */
export async function openBackendDb(dataDir: string): Promise<Db> {
  const { databaseUrl } = await backendFor(dataDir);
  return databaseUrl ? createPostgresDb({ connectionString: databaseUrl, max: 2 }) : openSqliteDatabase(join(dataDir, 'voxctl.db'));
}

/**
 * Everything the database holds, as bytes to search for secrets: the SQLite files (after a checkpoint,
 * so the WAL is in them too), or on PostgreSQL every row of every table as text.
 */
export async function storedBytes(server: { dataDir: string; runtime: { db: Db } }): Promise<Buffer> {
  const db = server.runtime.db;
  if (testBackend() === 'sqlite') {
    await db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    const files = readdirSync(server.dataDir).filter((f) => f.startsWith('voxctl.db'));
    if (!files.includes('voxctl.db')) throw new Error(`no voxctl.db in ${server.dataDir}`);
    return Buffer.concat(files.map((f) => readFileSync(join(server.dataDir, f))));
  }
  const tables = await db.column<string>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
  const parts: string[] = [];
  for (const t of tables) parts.push(...(await db.column<string>(`SELECT t::text FROM ${t} t`)));
  return Buffer.from(parts.join('\n'));
}

/** Runs `fn` on a second handle of `dataDir`'s database (see `openBackendDb`) and closes it. */
export async function withBackendDb<T>(dataDir: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openBackendDb(dataDir);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/**
 * The names of the audio blobs a server of `dataDir` stored: the files of `{dataDir}/audio` on SQLite,
 * the `audio_blobs` rows on PostgreSQL (where audio lives in the database, DESIGN §9.2).
 */
export async function audioBlobNames(dataDir: string): Promise<string[]> {
  if (testBackend() === 'sqlite') {
    const dir = join(dataDir, 'audio');
    return existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith(TEMP_PREFIX)).sort() : [];
  }
  return withBackendDb(dataDir, (db) => db.column<string>('SELECT name FROM audio_blobs ORDER BY name'));
}

/**
 * What interrupted audio writes left behind: `.tmp-` files in `{dataDir}/audio` on SQLite; on PostgreSQL
 * chunk rows of a version that is neither current nor retired (a put is one transaction: there must be none).
 */
export async function audioDebris(dataDir: string): Promise<string[]> {
  if (testBackend() === 'sqlite') {
    const dir = join(dataDir, 'audio');
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith(TEMP_PREFIX)) : [];
  }
  return withBackendDb(dataDir, (db) =>
    db.column<string>(
      `SELECT DISTINCT c.blob_id FROM audio_blob_chunks c
       WHERE NOT EXISTS (SELECT 1 FROM audio_blobs b WHERE b.blob_id = c.blob_id)
         AND NOT EXISTS (SELECT 1 FROM audio_blob_retired r WHERE r.blob_id = c.blob_id)`,
    ),
  );
}
