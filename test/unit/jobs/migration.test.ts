import { loadSqliteDriver } from '../../../src/server/storage/sqlite-driver.js';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../src/server/storage/migrations/index.js';
import type { Db } from '../../../src/server/storage/db.js';

const Database = loadSqliteDriver();

/** The plan SQLite picks for `sql`, flattened to one string. */
const plan = (db: Db, sql: string, ...args: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');

describe('migration 003 (audio, jobs, queue, datasets, idempotency)', () => {
  const db = new Database(':memory:');
  migrate(db);

  it('lists jobs, datasets and claims queue items through indexes', () => {
    expect(plan(db, 'SELECT * FROM jobs WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 20', 'u')).toMatch(/USING INDEX jobs_user_created/);
    expect(plan(db, 'SELECT * FROM jobs WHERE user_id = ? AND status = ? ORDER BY created_at DESC LIMIT 20', 'u', 'pending')).toMatch(
      /USING INDEX jobs_user_status_created/,
    );
    expect(plan(db, "SELECT * FROM job_items WHERE status = 'pending' ORDER BY rowid LIMIT 4")).toMatch(/USING (COVERING )?INDEX job_items_status/);
    expect(plan(db, 'SELECT * FROM datasets WHERE user_id = ? ORDER BY created_at DESC LIMIT 20', 'u')).toMatch(/USING INDEX datasets_user_created/);
    expect(plan(db, 'SELECT * FROM job_items WHERE job_id = ? ORDER BY idx', 'j')).toMatch(/USING INDEX sqlite_autoindex_job_items_1/);
  });

  it('enforces the allowed states', () => {
    expect(() =>
      db.prepare(`INSERT INTO jobs (id, user_id, status, total_items, created_at) VALUES ('j', 'u', 'done', 1, 'now')`).run(),
    ).toThrow(/CHECK/);
  });
});
