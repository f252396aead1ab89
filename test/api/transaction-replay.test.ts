/**
 * The PostgreSQL test pass runs every transaction body of the server twice, the first run rolled back
 * (VOXCTL_TEST_REPLAY_TRANSACTIONS, vitest.config.ts): a body with an effect outside the database fails
 * the API tests there, as a serialisation retry would break it in production. SQLite never replays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { testBackend } from '../helpers/postgres.js';

describe('transaction bodies of a test server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it(`run ${testBackend() === 'postgres' ? 'twice (first rolled back) on PostgreSQL' : 'once on SQLite'}`, async () => {
    const db = server.runtime.db;
    let runs = 0;
    await db.transaction(async () => {
      runs++;
      await db.value('SELECT count(*) FROM speakers WHERE id = ?', ['spk_none']);
    });
    expect(runs).toBe(testBackend() === 'postgres' ? 2 : 1);
  });
});
