import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../src/server/storage/db.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('database files are owner-only (0600)', () => {
  const dirs: string[] = [];
  const dbs: Db[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-private-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    for (const db of dbs.splice(0)) await db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('creates voxctl.db, its -wal and -shm 0600 under a permissive umask', async () => {
    const file = join(tempDir(), 'voxctl.db');
    const previous = process.umask(0o022);
    try {
      const db = await openSqliteDatabase(file);
      dbs.push(db);
      await db.exec('CREATE TABLE t (x)');
      await db.run('INSERT INTO t VALUES (1)');
    } finally {
      process.umask(previous);
    }
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect([path, mode(path).toString(8)]).toEqual([path, '600']);
  });

  it('tightens a database an earlier version left 0644', async () => {
    const file = join(tempDir(), 'voxctl.db');
    dbs.push(await openSqliteDatabase(file));
    await dbs.pop()!.close();
    chmodSync(file, 0o644);
    writeFileSync(`${file}-wal`, '', { mode: 0o644 });
    chmodSync(`${file}-wal`, 0o644);
    dbs.push(await openSqliteDatabase(file));
    expect(mode(file).toString(8)).toBe('600');
    expect(mode(`${file}-wal`).toString(8)).toBe('600');
  });

  it('leaves in-memory databases alone', async () => {
    const db = await openSqliteDatabase(':memory:');
    dbs.push(db);
    expect(await db.get('SELECT 1 AS one')).toEqual({ one: 1 });
  });
});
