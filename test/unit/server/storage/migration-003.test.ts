import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../../src/server/storage/migrations/index.js';
import type BetterSqlite3 from 'better-sqlite3';
import { JOB_ITEM_SQL } from '../../../../src/server/features/jobs/repository.js';
import { ownedPageQuery } from '../../../../src/server/storage/repositories/owned-page.js';
import { DATASET_PAGE_SQL } from '../../../../src/server/features/datasets/repository.js';

const Database = loadSqliteDriver();

/** The plan SQLite picks for `sql`, flattened to one string. */
const plan = (db: BetterSqlite3.Database, sql: string, ...args: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');

describe('migration 003 (audio, jobs, queue, datasets, idempotency)', () => {
  const db = new Database(':memory:');
  migrate(db);

  it('lists jobs, datasets and claims queue items through indexes', () => {
    // The repositories' own SQL, not copies: a query edited there is checked here.
    const all = ownedPageQuery('jobs', { userId: 'u', limit: 20, offset: 0 });
    expect(plan(db, all.items.sql, ...all.items.params)).toMatch(/USING INDEX jobs_user_created/);
    const pending = ownedPageQuery('jobs', { userId: 'u', status: 'pending', limit: 20, offset: 0 });
    expect(plan(db, pending.items.sql, ...pending.items.params)).toMatch(/USING INDEX jobs_user_status_created/);
    expect(plan(db, pending.total.sql, ...pending.total.params)).toMatch(/USING (COVERING )?INDEX jobs_user_status_created/);
    expect(plan(db, JOB_ITEM_SQL.claimPending, 4)).toMatch(/USING (COVERING )?INDEX job_items_status/);
    expect(plan(db, DATASET_PAGE_SQL, 'u', 20, 0)).toMatch(/USING INDEX datasets_user_created/);
    expect(plan(db, JOB_ITEM_SQL.ofJob, 'j')).toMatch(/USING INDEX sqlite_autoindex_job_items_1/);
  });

  it('enforces the allowed states', () => {
    expect(() =>
      db.prepare(`INSERT INTO jobs (id, user_id, status, total_items, created_at) VALUES ('j', 'u', 'done', 1, 'now')`).run(),
    ).toThrow(/CHECK/);
  });
});
