import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';
import { createSqliteDb } from '../../../../src/server/storage/sql/sqlite.js';
import type { Db } from '../../../../src/server/storage/db.js';

const Database = loadSqliteDriver();

/** A promise and the function that settles it: holds a transaction open until the test says so. */
function latch(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Lets every pending callback run (a query that could run would have by then). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the SQLite storage seam', () => {
  let dir: string;
  let db: Db;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxctl-seam-'));
    const raw = new Database(join(dir, 'seam.db'));
    raw.pragma('journal_mode = WAL');
    db = createSqliteDb(raw);
    await db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, n INTEGER)');
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async () => Number(await db.value('SELECT count(*) FROM notes'));

  it('binds positional and named parameters and reads rows, one row, a value and a column', async () => {
    expect(db.dialect).toBe('sqlite');
    expect(await db.run('INSERT INTO notes (body, n) VALUES (?, ?)', ['one', 1])).toBe(1);
    expect(await db.run('INSERT INTO notes (body, n) VALUES (@body, @n)', { body: 'two', n: 2 })).toBe(1);
    expect(await db.run('INSERT INTO notes (body, n) VALUES (@body, @n)', { body: 'three', n: null })).toBe(1);
    expect(await db.all('SELECT body, n FROM notes ORDER BY id')).toEqual([
      { body: 'one', n: 1 },
      { body: 'two', n: 2 },
      { body: 'three', n: null },
    ]);
    expect(await db.get('SELECT body FROM notes WHERE n = ?', [2])).toEqual({ body: 'two' });
    expect(await db.get('SELECT body FROM notes WHERE n = ?', [9])).toBeUndefined();
    expect(await db.value('SELECT body FROM notes WHERE n = @n', { n: 1 })).toBe('one');
    expect(await db.value('SELECT body FROM notes WHERE n = 9')).toBeUndefined();
    expect(await db.column('SELECT body FROM notes ORDER BY id DESC')).toEqual(['three', 'two', 'one']);
    // The same SQL read as rows and as a value: the statement cache keeps the two modes apart.
    expect(await db.get('SELECT count(*) AS c FROM notes')).toEqual({ c: 3 });
    expect(await db.value('SELECT count(*) AS c FROM notes')).toBe(3);
    expect(await db.run('UPDATE notes SET n = 0 WHERE n IS NOT NULL')).toBe(2);
  });

  it('rejects, not throws, on bad SQL or a violated constraint', async () => {
    const bad = db.all('SELECT nope FROM notes');
    await expect(bad).rejects.toThrow(/no such column/);
    await expect(db.run('INSERT INTO notes (body) VALUES (NULL)')).rejects.toThrow(/NOT NULL/);
  });

  it('commits a transaction and resolves to its result', async () => {
    expect(db.inTransaction()).toBe(false);
    const out = await db.transaction(async () => {
      expect(db.inTransaction()).toBe(true);
      await db.run('INSERT INTO notes (body) VALUES (?)', ['a']);
      await db.run('INSERT INTO notes (body) VALUES (?)', ['b']);
      return 'done';
    });
    expect(out).toBe('done');
    expect(db.inTransaction()).toBe(false);
    expect(await count()).toBe(2);
  });

  it('rolls the whole transaction back when its body throws, and rethrows', async () => {
    await db.run('INSERT INTO notes (body) VALUES (?)', ['before']);
    await expect(
      db.transaction(async () => {
        await db.run('INSERT INTO notes (body) VALUES (?)', ['inside']);
        expect(await count()).toBe(2);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await db.column('SELECT body FROM notes')).toEqual(['before']);
    // The connection is usable again: no transaction was left open.
    await db.transaction(() => db.run('INSERT INTO notes (body) VALUES (?)', ['after']));
    expect(await count()).toBe(2);
  });

  it('makes another async context wait for an open transaction; it never sees uncommitted rows', async () => {
    const hold = latch();
    const tx = db.transaction(async () => {
      await db.run('INSERT INTO notes (body) VALUES (?)', ['uncommitted']);
      await hold.promise;
      throw new Error('rolled back');
    });
    await settle();
    let seen: number | undefined;
    const outside = count().then((n) => (seen = n));
    await settle();
    // The transaction is still open (its body awaits): the outside read has not run.
    expect(seen).toBeUndefined();
    hold.open();
    await expect(tx).rejects.toThrow('rolled back');
    await outside;
    expect(seen).toBe(0);
  });

  it('lets a waiting context see the rows once the transaction commits, and serialises writers', async () => {
    const hold = latch();
    const tx = db.transaction(async () => {
      await db.run('INSERT INTO notes (body, n) VALUES (?, ?)', ['first', 1]);
      await hold.promise;
      await db.run('INSERT INTO notes (body, n) VALUES (?, ?)', ['second', 2]);
    });
    await settle();
    // Another context's transaction queues behind: its read-then-write is atomic.
    const other = db.transaction(async () => {
      const max = Number(await db.value('SELECT max(n) FROM notes'));
      await db.run('INSERT INTO notes (body, n) VALUES (?, ?)', ['third', max + 1]);
    });
    const outside = db.column('SELECT body FROM notes ORDER BY n');
    await settle();
    hold.open();
    await Promise.all([tx, other]);
    const seen = await outside;
    // The plain read ran after the first transaction, before or after the second, never inside one.
    expect([['first', 'second'], ['first', 'second', 'third']]).toContainEqual(seen);
    expect(await db.all('SELECT body, n FROM notes ORDER BY n')).toEqual([
      { body: 'first', n: 1 },
      { body: 'second', n: 2 },
      { body: 'third', n: 3 },
    ]);
  });

  it('joins a transaction opened inside another: one commit, one rollback for both', async () => {
    await expect(
      db.transaction(async () => {
        await db.run('INSERT INTO notes (body) VALUES (?)', ['outer']);
        const inner = await db.transaction(async () => {
          expect(db.inTransaction()).toBe(true);
          await db.run('INSERT INTO notes (body) VALUES (?)', ['inner']);
          return 'inner result';
        });
        expect(inner).toBe('inner result');
        // Nothing is committed yet: the inner transaction joined the outer one.
        expect(await count()).toBe(2);
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(await count()).toBe(0);

    await db.transaction(async () => {
      await db.transaction(() => db.run('INSERT INTO notes (body) VALUES (?)', ['kept']));
    });
    expect(await db.column('SELECT body FROM notes')).toEqual(['kept']);
  });

  it('answers valueNow at once, except while another context\'s transaction holds the connection', async () => {
    await db.run('INSERT INTO notes (body, n) VALUES (?, ?)', ['a', 7]);
    expect(db.valueNow?.<number>('SELECT n FROM notes WHERE body = ?', ['a'])).toBe(7);
    const hold = latch();
    let inside: number | undefined;
    const tx = db.transaction(async () => {
      await db.run('UPDATE notes SET n = 8');
      inside = db.valueNow?.<number>('SELECT n FROM notes');
      await hold.promise;
    });
    await settle();
    // The transaction's own context reads its write; any other context must wait (ask `value`).
    expect(inside).toBe(8);
    expect(db.valueNow?.<number>('SELECT n FROM notes')).toBeUndefined();
    const waiting = db.value<number>('SELECT n FROM notes');
    hold.open();
    await tx;
    expect(await waiting).toBe(8);
    expect(db.valueNow?.<number>('SELECT n FROM notes')).toBe(8);
  });

  it('keeps another connection out while a transaction is open (the write lock is taken at BEGIN)', async () => {
    const other = new Database(join(dir, 'seam.db'));
    other.pragma('busy_timeout = 0');
    try {
      const hold = latch();
      const tx = db.transaction(async () => {
        await hold.promise;
        await db.run('INSERT INTO notes (body) VALUES (?)', ['mine']);
      });
      await settle();
      expect(() => other.prepare('INSERT INTO notes (body) VALUES (?)').run('theirs')).toThrow(/locked|busy/i);
      hold.open();
      await tx;
      other.prepare('INSERT INTO notes (body) VALUES (?)').run('theirs');
      expect(await db.column('SELECT body FROM notes ORDER BY id')).toEqual(['mine', 'theirs']);
    } finally {
      other.close();
    }
  });

  it('closes once, after the open transaction ends', async () => {
    const hold = latch();
    const tx = db.transaction(async () => {
      await db.run('INSERT INTO notes (body) VALUES (?)', ['last']);
      await hold.promise;
    });
    await settle();
    const closing = db.close();
    hold.open();
    await tx;
    await closing;
    await db.close();
    await expect(db.value('SELECT 1')).rejects.toThrow(/not open/i);
    const reopened = new Database(join(dir, 'seam.db'));
    expect(reopened.prepare('SELECT body FROM notes').pluck().all()).toEqual(['last']);
    reopened.close();
    // afterEach closes again: idempotent.
  });
});
