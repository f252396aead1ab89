import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { changeTier, setCancelled } from '../../src/server/features/billing/service.js';
import { withBackendDb } from '../helpers/backend-db.js';

// Key and user lookups are cached on the hot path: every change must still apply to the very next
// request, whether this server made it or another process wrote the database. On SQLite that is the row
// cache's `data_version` check; on PostgreSQL, where several instances write the same rows, nothing is
// cached — the same assertions hold there through a second connection to the server's database.
describe('cached key and user lookups stay exact', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  const me = (key: string) => call(server, 'GET', '/v1/users/me', { key });

  it('a revoked key answers 401 on the next request', async () => {
    const created = await call(server, 'POST', '/v1/keys', { key: server.key, json: { name: 'doomed' } });
    expect((await me(created.body.key)).status).toBe(200);
    expect((await me(created.body.key)).status).toBe(200);
    expect((await call(server, 'DELETE', `/v1/keys/${created.body.id}`, { key: server.key })).status).toBe(204);
    expect((await me(created.body.key)).status).toBe(401);
  });

  it('a key revoked by another process (another connection to the database) answers 401 on the next request', async () => {
    const created = await call(server, 'POST', '/v1/keys', { key: server.key, json: { name: 'revoked elsewhere' } });
    expect((await me(created.body.key)).status).toBe(200);
    await withBackendDb(server.dataDir, (other) => other.run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', [new Date().toISOString(), created.body.id]));
    expect((await me(created.body.key)).status).toBe(401);
  });

  it('a tier change applies to the rate limits of the next request, made here or elsewhere', async () => {
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'tiers@example.com', tier: 'free', now: new Date() });
    expect((await me(key.key)).headers.get('x-ratelimit-limit')).toBe('20');
    await changeTier(server.runtime.db, { userId: user.id, tier: 'starter', now: new Date() });
    expect((await me(key.key)).headers.get('x-ratelimit-limit')).toBe('60');
    await withBackendDb(server.dataDir, (other) => other.run(`UPDATE users SET subscription_tier = 'pro' WHERE id = ?`, [user.id]));
    expect((await me(key.key)).headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('still records last_used_at', async () => {
    const created = await call(server, 'POST', '/v1/keys', { key: server.key, json: { name: 'used' } });
    await me(created.body.key);
    await me(created.body.key);
    const listed = (await call(server, 'GET', '/v1/keys?limit=100', { key: server.key })).body.items.find((k: { id: string }) => k.id === created.body.id);
    expect(listed.last_used_at).toEqual(expect.stringMatching(/^\d{4}-/));
  });

  it('a cancelled or resumed subscription applies to the next request', async () => {
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'cancel@example.com', tier: 'starter', now: new Date() });
    expect((await me(key.key)).body.subscription_tier).toBe('starter');
    const sub = () => call(server, 'GET', '/v1/billing/subscription', { key: key.key });
    expect((await sub()).body.status).toBe('active');
    await setCancelled(server.runtime.db, { userId: user.id, cancelled: true });
    expect((await sub()).body.status).toBe('cancelled');
    await setCancelled(server.runtime.db, { userId: user.id, cancelled: false });
    expect((await sub()).body.status).toBe('active');
  });

  it('a user changed by another process shows the change on the next request', async () => {
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'rename@example.com', name: 'Before', now: new Date() });
    expect((await me(key.key)).body.name).toBe('Before');
    await withBackendDb(server.dataDir, (other) => other.run(`UPDATE users SET name = 'After' WHERE id = ?`, [user.id]));
    expect((await me(key.key)).body.name).toBe('After');
  });
});
