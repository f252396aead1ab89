import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import type { Db } from '../../src/server/storage/sql/types.js';
import { cachedRow } from '../../src/server/storage/repositories/row-cache.js';
import { createTestDatabase } from '../helpers/postgres.js';

// Two handles are two instances: what one caches, a commit by the other must invalidate (DESIGN §9.2).
let a: Db;
let b: Db;
let drop: () => Promise<void>;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

beforeAll(async () => {
  const t = await createTestDatabase();
  drop = t.drop;
  a = createPostgresDb({ connectionString: t.url, max: 2 });
  b = createPostgresDb({ connectionString: t.url, max: 2 });
  await b.run(`INSERT INTO users (id, email, name, subscription_tier, created_at) VALUES ('usr_c', 'c@example.com', 'Cleo', 'free', 'now')`);
  await b.run(`INSERT INTO api_keys (id, user_id, name, scope, prefix, key_hash, created_at) VALUES ('key_c', 'usr_c', 'k', 'full', 'vox_abcd', 'hash_c', 'now')`);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await drop?.();
});

describe('row cache on PostgreSQL (cache_epoch, bumped by triggers in the changing transaction)', () => {
  it('serves repeated lookups from memory and sees another instance’s change on the next turn', async () => {
    let loads = 0;
    const user = () => cachedRow(a, 'users', 'usr_c', async () => (loads++, a.get<{ name: string }>('SELECT name FROM users WHERE id = ?', ['usr_c'])));
    expect((await user())!.name).toBe('Cleo');
    await nextTurn();
    expect((await user())!.name).toBe('Cleo');
    expect(loads).toBe(1);
    await b.run("UPDATE users SET name = 'Cleopatra' WHERE id = 'usr_c'");
    await nextTurn();
    expect((await user())!.name).toBe('Cleopatra');
    expect(loads).toBe(2);
  });

  it('a key revoked elsewhere is gone on the next turn; a last_used_at touch invalidates nothing', async () => {
    let loads = 0;
    const key = () =>
      cachedRow(a, 'key-owners', 'hash_c', async () => (loads++, a.get<{ id: string }>('SELECT id FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL', ['hash_c'])));
    expect(await key()).toEqual({ id: 'key_c' });
    await b.run("UPDATE api_keys SET last_used_at = 'later' WHERE id = 'key_c'");
    await nextTurn();
    expect(await key()).toEqual({ id: 'key_c' });
    expect(loads).toBe(1);
    await b.run("UPDATE api_keys SET revoked_at = 'now' WHERE id = 'key_c'");
    await nextTurn();
    expect(await key()).toBeUndefined();
    expect(loads).toBe(2);
  });
});
