import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createTransactionContext } from '../../../../src/server/storage/sql/transaction-context.js';

describe('the transaction context', () => {
  it('answers the transaction in its body and everything the body awaits, and nothing outside', async () => {
    const ctx = createTransactionContext<string>();
    expect(ctx.current()).toBeUndefined();
    let leftBehind: Promise<string | undefined> | undefined;
    const out = await ctx.run('tx1', async () => {
      expect(ctx.current()).toBe('tx1');
      await new Promise((r) => setTimeout(r, 1));
      expect(ctx.current()).toBe('tx1');
      // A promise the body starts but does not await outlives the transaction: by then it is in none.
      leftBehind = new Promise((r) => setTimeout(r, 20)).then(() => ctx.current());
      return 'done';
    });
    expect(out).toBe('done');
    expect(ctx.current()).toBeUndefined();
    expect(await leftBehind).toBeUndefined();
  });

  it('keeps concurrent transactions apart and ends each one on an error too', async () => {
    const ctx = createTransactionContext<string>();
    const seen: string[] = [];
    const body = (name: string, ms: number) => async () => {
      await new Promise((r) => setTimeout(r, ms));
      seen.push(`${name}:${ctx.current()}`);
      if (name === 'b') throw new Error('b failed');
    };
    const results = await Promise.allSettled([ctx.run('a', body('a', 15)), ctx.run('b', body('b', 5)), ctx.run('c', body('c', 10))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(seen).toEqual(['b:b', 'c:c', 'a:a']);
    expect(ctx.current()).toBeUndefined();
  });

  // Promise hooks are process-wide: the database runs in a child process, never in the test runner's.
  it('leaves no promise hook behind once the last transaction of a database has ended', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-txctx-'));
    const dist = (path: string) => JSON.stringify(new URL(`../../../../dist/server/storage/${path}`, import.meta.url).href);
    // The async id a promise continuation runs under: 0 while no promise hook is installed, else a fresh
    // id — what every promise of the process pays for while an AsyncLocalStorage is enabled on Node 20.
    const script = `
      import { executionAsyncId } from 'node:async_hooks';
      const { createSqliteDb } = await import(${dist('sql/sqlite.js')});
      const { loadSqliteDriver } = await import(${dist('sqlite-driver.js')});
      const probe = () => new Promise((resolve) => void Promise.resolve().then(() => resolve(executionAsyncId())));
      const Database = loadSqliteDriver();
      const db = createSqliteDb(new Database(${JSON.stringify(join(dir, 'tx.db'))}));
      const before = await probe();
      await db.exec('CREATE TABLE t (n INTEGER)');
      let during = -1;
      await db.transaction(async () => {
        await db.run('INSERT INTO t (n) VALUES (1)');
        during = await probe();
      });
      const after = await probe();
      console.log(JSON.stringify({ before, during, after, rows: await db.value('SELECT count(*) FROM t') }));
      await db.close();`;
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_OPTIONS: '' } });
      const seen = JSON.parse(stdout) as { before: number; during: number; after: number; rows: number };
      expect(seen.before).toBe(0);
      // Node 20 tracks the context with promise hooks (a fresh id during the transaction); later Nodes keep
      // it in a frame and never install them. Either way nothing is left installed once it has ended.
      if (process.versions.node.startsWith('20.')) expect(seen.during).toBeGreaterThan(0);
      expect(seen.after).toBe(0);
      expect(seen.rows).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
