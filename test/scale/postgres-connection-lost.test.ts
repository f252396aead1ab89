import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import type { Db } from '../../src/server/storage/sql/types.js';
import { createTestDatabase } from '../helpers/postgres.js';

// PostgreSQL ending a connection while a transaction holds it between two queries (a shutdown, a failover,
// an operator's pg_terminate_backend) reaches pg's client as an `error` event no query is waiting for. Unheard,
// that event ended the whole server (seen when a test stopped PostgreSQL under load, DESIGN §14.3).
let url: string;
let drop: () => Promise<void>;
const dbs: Db[] = [];
const open = () => {
  const db = createPostgresDb({ connectionString: url, max: 1 });
  dbs.push(db);
  return db;
};

beforeAll(async () => {
  const t = await createTestDatabase();
  url = t.url;
  drop = t.drop;
});
afterAll(async () => {
  for (const db of dbs) await db.close();
  await drop?.();
});

describe('a connection lost inside a transaction', () => {
  it('fails that transaction, not the process, and the next one gets a new connection', async () => {
    const db = open();
    const admin = open();
    const attempt = db.transaction(async () => {
      const pid = (await db.value<number>('SELECT pg_backend_pid()'))!;
      expect(await admin.value<boolean>('SELECT pg_terminate_backend(?)', [pid])).toBe(true);
      // The termination notice arrives while no query of this client is running.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return db.value<number>('SELECT 1');
    });
    await expect(attempt).rejects.toThrow();
    expect(await db.transaction(async () => db.value<number>('SELECT 2'))).toBe(2);
  });
});
