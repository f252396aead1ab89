import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openBackendDb } from '../helpers/backend-db.js';
import { testBackend } from '../helpers/postgres.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { TEST_KEY } from '../helpers/server.js';
import { knownMigrations } from '../../src/server/storage/migrations/known.js';
import type { Db } from '../../src/server/storage/sql/types.js';

// DESIGN §14.13: a newer release migrates first; while its migrations are all recorded compatible the
// running (older) instance stays ready and serves, /health says `"schema": "newer_compatible"`, and it
// even starts again on that schema; one incompatible newer migration takes it out (503) and stops a start.
const dirs: string[] = [];
const running: ServeProcess[] = [];
const handles: Db[] = [];
afterAll(async () => {
  await Promise.allSettled(running.map((s) => s.stop('SIGKILL')));
  for (const h of handles) await h.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const get = async (s: ServeProcess, path: string, key?: string) => {
  const res = await fetch(`${s.url}${path}`, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** What a newer release's migration leaves: its change, and its row in voxctl_schema_migrations. */
async function newerMigration(db: Db, version: number, name: string, compatible: boolean): Promise<void> {
  await db.exec(`ALTER TABLE speakers ADD COLUMN ${name.replaceAll('-', '_')} TEXT`);
  await db.run(`INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (?, ?, ?, ?, ${compatible ? 'TRUE' : 'FALSE'})`, [
    version,
    name,
    'f'.repeat(64),
    new Date().toISOString(),
  ]);
  if (db.dialect === 'sqlite') await db.exec(`PRAGMA user_version = ${version}`);
}

describe('schema compatibility (DESIGN §14.13)', () => {
  it('an instance stays ready on newer compatible migrations, and goes unready on an incompatible one', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-compat-'));
    dirs.push(dataDir);
    let serve = await startServe(dataDir);
    running.push(serve);
    const db = await openBackendDb(dataDir);
    handles.push(db);
    const known = (await knownMigrations(testBackend())).length;

    // Every row records compatible: 1/0 on SQLite, a boolean on PostgreSQL; the table has exactly these columns.
    const columns =
      db.dialect === 'sqlite'
        ? await db.column<string>("SELECT name FROM pragma_table_info('voxctl_schema_migrations') ORDER BY cid")
        : await db.column<string>("SELECT column_name FROM information_schema.columns WHERE table_name = 'voxctl_schema_migrations' ORDER BY ordinal_position");
    expect(columns).toEqual(['version', 'name', 'checksum', 'applied_at', 'compatible']);
    const rows = await db.all<{ name: string; compatible: number | boolean }>('SELECT name, compatible FROM voxctl_schema_migrations ORDER BY version');
    expect(rows).toHaveLength(known);
    expect(rows.find((r) => r.name === 'migration-compatibility')?.compatible).toBe(db.dialect === 'sqlite' ? 1 : true);
    expect(rows.find((r) => r.name === 'event-loop-lag')?.compatible).toBe(db.dialect === 'sqlite' ? 1 : true);
    expect((await get(serve, '/health')).body.schema).toBe('current');

    // A newer release adds a nullable column, compatibly: the running instance stays ready and serves.
    await newerMigration(db, known + 1, 'future-note', true);
    expect(await get(serve, '/health/ready')).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await get(serve, '/health')).body).toMatchObject({ status: 'ok', schema: 'newer_compatible' });
    expect((await get(serve, '/v1/speakers?limit=1', TEST_KEY)).status).toBe(200);

    // It starts again on that schema (a rollback after a compatible migration needs no restore).
    await serve.stop();
    serve = await startServe(dataDir);
    running.push(serve);
    expect((await get(serve, '/health/ready')).status).toBe(200);
    expect((await get(serve, '/health')).body.schema).toBe('newer_compatible');

    // One incompatible newer migration: unready at once, and no start.
    await newerMigration(db, known + 2, 'future-rename', false);
    const ready = await get(serve, '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'not_ready', reason: `schema is newer than this voxctl (migration ${known + 2} future-rename)` });
    await serve.stop();
    const refused = await startServe(dataDir).then(
      () => 'started',
      (err: Error) => err.message,
    );
    expect(refused).toContain(`Database schema version ${known + 2} is newer than this voxctl knows (${known})`);
  });
});
