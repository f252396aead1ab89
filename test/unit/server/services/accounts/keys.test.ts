import { describe, expect, it } from 'vitest';
import { coreDb } from '../../../../helpers/core-db.js';
import {
  API_KEY_PATTERN,
  authenticateApiKey,
  createApiKey,
  deleteApiKey,
  generateApiKey,
  hashApiKey,
  listApiKeys,
} from '../../../../../src/server/features/accounts/keys.js';
import { createUserWithKey } from '../../../../../src/server/features/accounts/users.js';
import { DomainError } from '../../../../../src/shared/errors.js';
import { statusOf } from '../../../../../src/server/plugins/errors.js';

const now = new Date('2025-03-10T12:00:00Z');

async function errorOf(fn: () => Promise<unknown>): Promise<DomainError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError');
}

describe('API keys', () => {
  it('generates distinct vox_ keys of 40 url-safe characters', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(k).toMatch(API_KEY_PATTERN);
  });

  it('stores only the hash and an 8-character prefix', async () => {
    const db = coreDb();
    const { user, key } = await createUserWithKey(db, { email: 'a@b.c', now });
    const row = (await db.get<Record<string, string>>('SELECT * FROM api_keys WHERE user_id = ?', [user.id]))!;
    expect(row.key_hash).toBe(hashApiKey(key.key));
    expect(row.prefix).toBe(key.key.slice(0, 8));
    expect(JSON.stringify(row)).not.toContain(key.key);
  });

  it('authenticates a valid key with its tier and rejects malformed, unknown and revoked keys', async () => {
    const db = coreDb();
    const { user, key } = await createUserWithKey(db, { email: 'a@b.c', tier: 'starter', now });
    expect(await authenticateApiKey(db, key.key, now)).toEqual({ userId: user.id, keyId: key.id, scope: 'full', tier: 'starter' });
    expect(await authenticateApiKey(db, key.key.slice(0, -1), now)).toBeUndefined();
    expect(await authenticateApiKey(db, generateApiKey(), now)).toBeUndefined();
    const second = await createApiKey(db, { userId: user.id, now });
    await deleteApiKey(db, { userId: user.id, keyId: second.id, callerKeyId: key.id, now });
    expect(await authenticateApiKey(db, second.key, now)).toBeUndefined();
  });

  it('answers a remembered key whose last use needs no writing without a promise, and forgets a revoked one', async () => {
    const db = coreDb();
    const { user, key } = await createUserWithKey(db, { email: 'a@b.c', tier: 'starter', now });
    const identity = { userId: user.id, keyId: key.id, scope: 'full', tier: 'starter' };
    const first = authenticateApiKey(db, key.key, now);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toEqual(identity);
    const soon = new Date(now.getTime() + 30_000);
    expect(authenticateApiKey(db, key.key, soon)).toEqual(identity);
    // Its last use is due again a minute later: written, so answered through the database.
    const later = authenticateApiKey(db, key.key, new Date(now.getTime() + 61_000));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toEqual(identity);
    const spare = await createApiKey(db, { userId: user.id, now });
    await deleteApiKey(db, { userId: user.id, keyId: key.id, callerKeyId: spare.id, now });
    expect(await authenticateApiKey(db, key.key, soon)).toBeUndefined();
  });

  it('records last use at most once a minute', async () => {
    const db = coreDb();
    const { key } = await createUserWithKey(db, { email: 'a@b.c', now });
    const lastUsed = () => db.value<string | null>('SELECT last_used_at AS t FROM api_keys WHERE id = ?', [key.id]);
    expect(await lastUsed()).toBeNull();
    await authenticateApiKey(db, key.key, now);
    expect(await lastUsed()).toBe(now.toISOString());
    await authenticateApiKey(db, key.key, new Date(now.getTime() + 30_000));
    expect(await lastUsed()).toBe(now.toISOString());
    const later = new Date(now.getTime() + 61_000);
    await authenticateApiKey(db, key.key, later);
    expect(await lastUsed()).toBe(later.toISOString());
    // The remembered row's last use moved in place: the next minute counts from it, not from the first.
    await authenticateApiKey(db, key.key, new Date(later.getTime() + 30_000));
    expect(await lastUsed()).toBe(later.toISOString());
    const third = new Date(later.getTime() + 61_000);
    await authenticateApiKey(db, key.key, third);
    expect(await lastUsed()).toBe(third.toISOString());
  });

  it('lists active keys newest first with paging', async () => {
    const db = coreDb();
    const { user, key } = await createUserWithKey(db, { email: 'a@b.c', now });
    const extra = [];
    for (const i of [1, 2, 3]) extra.push(await createApiKey(db, { userId: user.id, name: `k${i}`, scope: 'read', now: new Date(now.getTime() + i * 1000) }));
    const page = await listApiKeys(db, user.id, { limit: 2, offset: 0 });
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 0, has_more: true });
    expect(page.items.map((k) => k.id)).toEqual([extra[2]!.id, extra[1]!.id]);
    const last = await listApiKeys(db, user.id, { limit: 2, offset: 2 });
    expect(last.has_more).toBe(false);
    expect(last.items.map((k) => k.id)).toEqual([extra[0]!.id, key.id]);
    expect(Object.keys(last.items[0]!).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'prefix', 'scope']);
  });

  it('refuses to delete the caller when it is the last full key, and hides other users\' keys', async () => {
    const db = coreDb();
    const a = await createUserWithKey(db, { email: 'a@b.c', now });
    const b = await createUserWithKey(db, { email: 'b@b.c', now });
    const err = await errorOf(() => deleteApiKey(db, { userId: a.user.id, keyId: a.key.id, callerKeyId: a.key.id, now }));
    expect([statusOf(err.code), err.message]).toEqual([400, 'Cannot delete the last full-scope API key']);
    const other = await errorOf(() => deleteApiKey(db, { userId: a.user.id, keyId: b.key.id, callerKeyId: a.key.id, now }));
    expect([statusOf(other.code), other.message]).toEqual([404, 'Key not found']);
    await createApiKey(db, { userId: a.user.id, now });
    await deleteApiKey(db, { userId: a.user.id, keyId: a.key.id, callerKeyId: a.key.id, now });
    const again = await errorOf(() => deleteApiKey(db, { userId: a.user.id, keyId: a.key.id, callerKeyId: a.key.id, now }));
    expect(statusOf(again.code)).toBe(404);
  });

  it('validates key names', async () => {
    const db = coreDb();
    const { user } = await createUserWithKey(db, { email: 'a@b.c', now });
    for (const name of ['   ', 'x'.repeat(101), 'a\u0000b', 'lone \ud800 surrogate']) {
      expect(statusOf((await errorOf(() => createApiKey(db, { userId: user.id, name, now }))).code)).toBe(400);
    }
    expect((await createApiKey(db, { userId: user.id, name: ' 🎙️ studio ', now })).name).toBe('🎙️ studio');
  });
});
