import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import type { Db } from '../../src/server/storage/sql/types.js';
import { createTestDatabase } from '../helpers/postgres.js';

let db: Db;
let drop: () => Promise<void>;

beforeAll(async () => {
  const t = await createTestDatabase({ fromTemplate: false });
  drop = t.drop;
  db = createPostgresDb({ connectionString: t.url, max: 8 });
  await db.exec('CREATE TABLE counter (id TEXT PRIMARY KEY, n INTEGER NOT NULL); CREATE TABLE log (id BIGINT GENERATED ALWAYS AS IDENTITY, note TEXT)');
  await db.run("INSERT INTO counter (id, n) VALUES ('a', 0)");
});
afterAll(async () => {
  await db?.close();
  await drop?.();
});

describe('PostgreSQL storage seam', () => {
  it('binds positional and named parameters, and returns 64-bit integers as numbers', async () => {
    await db.run('INSERT INTO log (note) VALUES (?)', ['first']);
    await db.run('INSERT INTO log (note) VALUES (@note)', { note: "it's -- not a comment ?" });
    expect(await db.column<string>('SELECT note FROM log ORDER BY id')).toEqual(['first', "it's -- not a comment ?"]);
    expect(await db.value('SELECT count(*) FROM log')).toBe(2);
    expect(await db.value("SELECT 'a ? b' || ?", ['!'])).toBe('a ? b!');
  });

  it('leaves comments, dollar quotes and the jsonb ?| / ?& operators to PostgreSQL (issue 32 item 6)', async () => {
    const row = await db.get(
      `SELECT /* a comment? */ '{"a": 1, "b": 2}'::jsonb ?| ARRAY['a', 'z'] AS any_key,
              '{"a": 1}'::jsonb ?& ARRAY['a', 'z'] AS all_keys, $$it's ? here$$ AS quoted, ? AS bound`,
      ['value'],
    );
    expect(row).toEqual({ any_key: true, all_keys: false, quoted: "it's ? here", bound: 'value' });
  });

  it('read-then-write transactions from 20 concurrent callers lose no update (SERIALIZABLE, retried)', async () => {
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction(async () => {
          const n = (await db.value<number>("SELECT n FROM counter WHERE id = 'a'"))!;
          await db.run("UPDATE counter SET n = ? WHERE id = 'a'", [n + 1]);
        }),
      ),
    );
    expect(await db.value("SELECT n FROM counter WHERE id = 'a'")).toBe(20);
  });

  it('routes the queries of the calling context into its transaction, and rolls back on a throw', async () => {
    await expect(
      db.transaction(async () => {
        expect(db.inTransaction()).toBe(true);
        await db.run("UPDATE counter SET n = 999 WHERE id = 'a'");
        expect(await db.value("SELECT n FROM counter WHERE id = 'a'")).toBe(999);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(db.inTransaction()).toBe(false);
    expect(await db.value("SELECT n FROM counter WHERE id = 'a'")).toBe(20);
  });

  it('a query of another context during a transaction sees only committed rows', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tx = db.transaction(async () => {
      await db.run("UPDATE counter SET n = 500 WHERE id = 'a'");
      await gate;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(await db.value("SELECT n FROM counter WHERE id = 'a'")).toBe(20);
    release();
    await tx;
    expect(await db.value("SELECT n FROM counter WHERE id = 'a'")).toBe(500);
  });
});

describe('U+0000 on PostgreSQL (its text cannot hold it; SQLite can)', () => {
  it('a read looking for a value with NUL finds nothing; a write of one is refused as bad input', async () => {
    expect(await db.get("SELECT * FROM counter WHERE id = ?", ['a\u0000'])).toBeUndefined();
    expect(await db.column('SELECT id FROM counter WHERE id = ?', ['\u0000'])).toEqual([]);
    await expect(db.run('INSERT INTO log (note) VALUES (?)', ['bad\u0000note'])).rejects.toMatchObject({ code: 'validation_failed', message: 'Text must not contain NUL (U+0000) characters' });
  });
});

describe('the replay option (VOXCTL_TEST_REPLAY_TRANSACTIONS in the PostgreSQL test pass)', () => {
  it('runs every outermost body twice, the first run rolled back: the database changes once, an outside effect twice', async () => {
    const t = await createTestDatabase({ fromTemplate: false });
    const replaying = createPostgresDb({ connectionString: t.url, max: 2, replayTransactions: true });
    try {
      await replaying.exec('CREATE TABLE hits (n INTEGER NOT NULL)');
      let bodyRuns = 0;
      let innerRuns = 0;
      const out = await replaying.transaction(async () => {
        bodyRuns++;
        await replaying.run('INSERT INTO hits (n) VALUES (?)', [bodyRuns]);
        // A nested transaction joins the outer one: it is replayed with it, not on its own.
        await replaying.transaction(async () => void innerRuns++);
        return bodyRuns;
      });
      expect([bodyRuns, innerRuns, out]).toEqual([2, 2, 2]);
      // Only the second run's insert was committed.
      expect(await replaying.column('SELECT n FROM hits')).toEqual([2]);
      // A body that throws throws from its real run; nothing is committed.
      let failingRuns = 0;
      await expect(
        replaying.transaction(async () => {
          failingRuns++;
          await replaying.run('INSERT INTO hits (n) VALUES (99)');
          throw new Error(`refused on run ${failingRuns}`);
        }),
      ).rejects.toThrow('refused on run 2');
      expect(await replaying.value('SELECT count(*) FROM hits')).toBe(1);
    } finally {
      await replaying.close();
      await t.drop();
    }
  });
});
