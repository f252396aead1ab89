import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coreDb } from '../../../../helpers/core-db.js';
import type { Db } from '../../../../../src/server/storage/db.js';
import { cachedRow, cachedRowNow, updateCachedRows } from '../../../../../src/server/storage/repositories/row-cache.js';
import { loadSqliteDriver } from '../../../../../src/server/storage/sqlite-driver.js';
import { m001Core } from '../../../../../src/server/storage/migrations/001-core.js';
import { userDisabledMigration } from '../../../../../src/server/storage/migrations/next/b-user-disabled.js';
import { createSqliteDb } from '../../../../../src/server/storage/sql/sqlite.js';

/** Loads a user's name, counting the reads that reach the database. */
function loader(db: Db) {
  let reads = 0;
  const load = async (id: string) => {
    reads++;
    return db.get<{ id: string; name: string }>('SELECT id, name FROM users WHERE id = ?', [id]);
  };
  return { load, reads: () => reads };
}

async function withUser(db: Db): Promise<void> {
  await db.run("INSERT INTO users (id, email, name, subscription_tier, created_at) VALUES ('usr_1', 'a@b.c', 'Ada', 'free', 't')");
}

describe('row cache', () => {
  it('on SQLite, answers repeated lookups from memory and drops a row changed on the handle', async () => {
    const db = coreDb();
    await withUser(db);
    const { load, reads } = loader(db);
    expect(await cachedRow(db, 'users', 'usr_1', () => load('usr_1'))).toEqual({ id: 'usr_1', name: 'Ada' });
    expect(await cachedRow(db, 'users', 'usr_1', () => load('usr_1'))).toEqual({ id: 'usr_1', name: 'Ada' });
    expect(reads()).toBe(1);
    await db.run("UPDATE users SET name = 'Grace' WHERE id = 'usr_1'");
    updateCachedRows<{ id: string }>(db, 'users', (row) => row.id === 'usr_1');
    expect(await cachedRow(db, 'users', 'usr_1', () => load('usr_1'))).toEqual({ id: 'usr_1', name: 'Grace' });
    expect(reads()).toBe(2);
  });

  it('does not keep a row read inside a transaction, nor one whose load a change overlapped', async () => {
    const db = coreDb();
    await withUser(db);
    const { load, reads } = loader(db);
    await db.transaction(() => cachedRow(db, 'users', 'usr_1', () => load('usr_1')));
    await cachedRow(db, 'users', 'usr_1', async () => {
      const row = await load('usr_1');
      // A change lands while this lookup is between its read and its return.
      updateCachedRows<{ id: string }>(db, 'users', () => false);
      return row;
    });
    await cachedRow(db, 'users', 'usr_1', () => load('usr_1'));
    await cachedRow(db, 'users', 'usr_1', () => load('usr_1'));
    expect(reads()).toBe(3);
  });

  it('answers at once what cachedRow would — and nothing once another connection has committed, until cachedRow reloads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-row-cache-'));
    const Database = loadSqliteDriver();
    const raw = new Database(join(dir, 'core.db'));
    raw.pragma('journal_mode = WAL');
    m001Core.up(raw);
    raw.exec(userDisabledMigration.sqlite);
    const db = createSqliteDb(raw);
    const other = new Database(join(dir, 'core.db'));
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    try {
      await withUser(db);
      const { load, reads } = loader(db);
      expect(cachedRowNow(db, 'users', 'usr_1')).toBeUndefined();
      await cachedRow(db, 'users', 'usr_1', () => load('usr_1'));
      await nextTurn();
      expect(cachedRowNow(db, 'users', 'usr_1')).toEqual({ id: 'usr_1', name: 'Ada' });

      // Another process (an admin command) renames the user: from the next turn on, nothing is answered at once.
      other.prepare("UPDATE users SET name = 'Grace' WHERE id = 'usr_1'").run();
      await nextTurn();
      expect(cachedRowNow(db, 'users', 'usr_1')).toBeUndefined();
      expect(await cachedRow(db, 'users', 'usr_1', () => load('usr_1'))).toEqual({ id: 'usr_1', name: 'Grace' });
      expect(cachedRowNow(db, 'users', 'usr_1')).toEqual({ id: 'usr_1', name: 'Grace' });
      expect(reads()).toBe(2);

      // A change on the handle itself drops the row at once.
      updateCachedRows<{ id: string }>(db, 'users', (row) => row.id === 'usr_1');
      expect(cachedRowNow(db, 'users', 'usr_1')).toBeUndefined();
    } finally {
      other.close();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
