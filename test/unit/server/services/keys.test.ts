import { describe, expect, it } from 'vitest';
import { coreDb } from '../../../helpers/core-db.js';
import {
  API_KEY_PATTERN,
  authenticateApiKey,
  createApiKey,
  deleteApiKey,
  generateApiKey,
  hashApiKey,
  listApiKeys,
} from '../../../../src/server/services/keys.js';
import { createUserWithKey } from '../../../../src/server/services/users.js';
import { DomainError } from '../../../../src/shared/errors.js';
import { statusOf } from '../../../../src/server/plugins/errors.js';

const now = new Date('2025-03-10T12:00:00Z');

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
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

  it('stores only the hash and an 8-character prefix', () => {
    const db = coreDb();
    const { user, key } = createUserWithKey(db, { email: 'a@b.c', now });
    const row = db.prepare('SELECT * FROM api_keys WHERE user_id = ?').get(user.id) as Record<string, string>;
    expect(row.key_hash).toBe(hashApiKey(key.key));
    expect(row.prefix).toBe(key.key.slice(0, 8));
    expect(JSON.stringify(row)).not.toContain(key.key);
  });

  it('authenticates a valid key with its tier and rejects malformed, unknown and revoked keys', () => {
    const db = coreDb();
    const { user, key } = createUserWithKey(db, { email: 'a@b.c', tier: 'starter', now });
    expect(authenticateApiKey(db, key.key, now)).toEqual({ userId: user.id, keyId: key.id, scope: 'full', tier: 'starter' });
    expect(authenticateApiKey(db, key.key.slice(0, -1), now)).toBeUndefined();
    expect(authenticateApiKey(db, generateApiKey(), now)).toBeUndefined();
    const second = createApiKey(db, { userId: user.id, now });
    deleteApiKey(db, { userId: user.id, keyId: second.id, callerKeyId: key.id, now });
    expect(authenticateApiKey(db, second.key, now)).toBeUndefined();
  });

  it('records last use at most once a minute', () => {
    const db = coreDb();
    const { key } = createUserWithKey(db, { email: 'a@b.c', now });
    const lastUsed = () => (db.prepare('SELECT last_used_at AS t FROM api_keys WHERE id = ?').get(key.id) as { t: string | null }).t;
    expect(lastUsed()).toBeNull();
    authenticateApiKey(db, key.key, now);
    expect(lastUsed()).toBe(now.toISOString());
    authenticateApiKey(db, key.key, new Date(now.getTime() + 30_000));
    expect(lastUsed()).toBe(now.toISOString());
    const later = new Date(now.getTime() + 61_000);
    authenticateApiKey(db, key.key, later);
    expect(lastUsed()).toBe(later.toISOString());
  });

  it('lists active keys newest first with paging', () => {
    const db = coreDb();
    const { user, key } = createUserWithKey(db, { email: 'a@b.c', now });
    const extra = [1, 2, 3].map((i) => createApiKey(db, { userId: user.id, name: `k${i}`, scope: 'read', now: new Date(now.getTime() + i * 1000) }));
    const page = listApiKeys(db, user.id, { limit: 2, offset: 0 });
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 0, has_more: true });
    expect(page.items.map((k) => k.id)).toEqual([extra[2]!.id, extra[1]!.id]);
    const last = listApiKeys(db, user.id, { limit: 2, offset: 2 });
    expect(last.has_more).toBe(false);
    expect(last.items.map((k) => k.id)).toEqual([extra[0]!.id, key.id]);
    expect(Object.keys(last.items[0]!).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'prefix', 'scope']);
  });

  it('refuses to delete the caller when it is the last full key, and hides other users\' keys', () => {
    const db = coreDb();
    const a = createUserWithKey(db, { email: 'a@b.c', now });
    const b = createUserWithKey(db, { email: 'b@b.c', now });
    const err = errorOf(() => deleteApiKey(db, { userId: a.user.id, keyId: a.key.id, callerKeyId: a.key.id, now }));
    expect([statusOf(err.code), err.message]).toEqual([400, 'Cannot delete the last full-scope API key']);
    const other = errorOf(() => deleteApiKey(db, { userId: a.user.id, keyId: b.key.id, callerKeyId: a.key.id, now }));
    expect([statusOf(other.code), other.message]).toEqual([404, 'Key not found']);
    createApiKey(db, { userId: a.user.id, now });
    deleteApiKey(db, { userId: a.user.id, keyId: a.key.id, callerKeyId: a.key.id, now });
    const again = errorOf(() => deleteApiKey(db, { userId: a.user.id, keyId: a.key.id, callerKeyId: a.key.id, now }));
    expect(statusOf(again.code)).toBe(404);
  });

  it('validates key names', () => {
    const db = coreDb();
    const { user } = createUserWithKey(db, { email: 'a@b.c', now });
    for (const name of ['   ', 'x'.repeat(101), 'a\u0000b', 'lone \ud800 surrogate']) {
      expect(statusOf(errorOf(() => createApiKey(db, { userId: user.id, name, now })).code)).toBe(400);
    }
    expect(createApiKey(db, { userId: user.id, name: ' 🎙️ studio ', now }).name).toBe('🎙️ studio');
  });
});
