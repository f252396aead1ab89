import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteDatabase, type Db } from '../../src/server/storage/db.js';
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
