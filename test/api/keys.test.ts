import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';

describe('/v1/keys', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('creates a key (201), shows it once, and the new key works', async () => {
    const res = await call(server, 'POST', '/v1/keys', { key: server.key, json: { name: 'ci runner', scope: 'read' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'ci runner',
      scope: 'read',
      key: expect.stringMatching(/^vox_[A-Za-z0-9_-]{40}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const me = await call(server, 'GET', '/v1/users/me', { key: res.body.key });
    expect(me.status).toBe(200);
    const list = await call(server, 'GET', '/v1/keys?limit=100', { key: server.key });
    expect(list.text).not.toContain(res.body.key);
    const listed = list.body.items.find((k: { id: string }) => k.id === res.body.id);
    expect(listed).toEqual({
      id: res.body.id,
      name: 'ci runner',
      scope: 'read',
      prefix: res.body.key.slice(0, 8),
      created_at: res.body.created_at,
      last_used_at: expect.any(String),
    });
  });

  it('defaults to a full key named default, with or without a body', async () => {
    const empty = await call(server, 'POST', '/v1/keys', { key: server.key });
    expect(empty.status).toBe(201);
    expect(empty.body).toMatchObject({ name: 'default', scope: 'full' });
    const obj = await call(server, 'POST', '/v1/keys', { key: server.key, json: {} });
    expect(obj.body).toMatchObject({ name: 'default', scope: 'full' });
    const emptyJson = await call(server, 'POST', '/v1/keys', { key: server.key, body: '', headers: { 'content-type': 'application/json' } });
    expect([emptyJson.status, emptyJson.body.scope]).toEqual([201, 'full']);
  });

  it('pages the list with the envelope, newest first', async () => {
    const all = await call(server, 'GET', '/v1/keys?limit=100', { key: server.key });
    expect(all.status).toBe(200);
    const total = all.body.total as number;
    expect(total).toBe(all.body.items.length);
    expect(total).toBeGreaterThanOrEqual(4);
    const first = await call(server, 'GET', '/v1/keys?limit=2', { key: server.key });
    expect(first.body).toMatchObject({ total, limit: 2, offset: 0, has_more: true });
    expect(first.body.items).toEqual(all.body.items.slice(0, 2));
    const tail = await call(server, 'GET', `/v1/keys?limit=2&offset=${total - 1}`, { key: server.key });
    expect(tail.body).toMatchObject({ limit: 2, offset: total - 1, has_more: false });
    expect(tail.body.items).toHaveLength(1);
    const created = all.body.items.map((k: { created_at: string }) => k.created_at);
    expect([...created].sort().reverse()).toEqual(created);
  });

  it('deletes a key (204) and drops it from the list', async () => {
    const created = await call(server, 'POST', '/v1/keys', { key: server.key, json: { name: 'gone' } });
    // Clients that send a JSON content type on every request, DELETE included, are fine.
    const del = await call(server, 'DELETE', `/v1/keys/${created.body.id}`, { key: server.key, headers: { 'content-type': 'application/json' } });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const list = await call(server, 'GET', '/v1/keys?limit=100', { key: server.key });
    expect(list.body.items.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
    const again = await call(server, 'DELETE', `/v1/keys/${created.body.id}`, { key: server.key });
    expect([again.status, again.body.detail]).toEqual([404, 'Key not found']);
  });

  it('answers 404 Key not found for unknown keys and other users\' keys, which stay usable', async () => {
    const other = await createUserWithKey(server.runtime.db, { email: 'other@example.com', now: new Date() });
    const res = await call(server, 'DELETE', `/v1/keys/${other.key.id}`, { key: server.key });
    expect([res.status, res.body.detail]).toEqual([404, 'Key not found']);
    expect((await call(server, 'GET', '/v1/users/me', { key: other.key.key })).status).toBe(200);
    const list = await call(server, 'GET', '/v1/keys', { key: other.key.key });
    expect(list.body.total).toBe(1);
    expect(list.body.items[0].id).toBe(other.key.id);
    expect((await call(server, 'DELETE', '/v1/keys/key_doesnotexist', { key: server.key })).status).toBe(404);
  });

  it('will not let the last full key delete itself (400), but allows it when another full key exists', async () => {
    const solo = await createUserWithKey(server.runtime.db, { email: 'solo@example.com', now: new Date() });
    const res = await call(server, 'DELETE', `/v1/keys/${solo.key.id}`, { key: solo.key.key });
    expect([res.status, res.body.detail]).toEqual([400, 'Cannot delete the last full-scope API key']);
    // A read key does not count as a way back in.
    await call(server, 'POST', '/v1/keys', { key: solo.key.key, json: { scope: 'read' } });
    expect((await call(server, 'DELETE', `/v1/keys/${solo.key.id}`, { key: solo.key.key })).status).toBe(400);
    const spare = await call(server, 'POST', '/v1/keys', { key: solo.key.key, json: { scope: 'full' } });
    expect((await call(server, 'DELETE', `/v1/keys/${solo.key.id}`, { key: solo.key.key })).status).toBe(204);
    expect((await call(server, 'GET', '/v1/users/me', { key: solo.key.key })).status).toBe(401);
    expect((await call(server, 'GET', '/v1/users/me', { key: spare.body.key })).status).toBe(200);
  });

  it.each([
    [{ scope: 'admin' }, /scope/],
    [{ name: '' }, /name/],
    [{ name: 'x'.repeat(101) }, /name/],
    [{ name: 42 }, /name/],
    [{ name: 'a\u0000b' }, /Key name contains invalid characters/],
    [[], /body/],
  ])('rejects %j with 400', async (json, detail) => {
    const res = await call(server, 'POST', '/v1/keys', { key: server.key, json });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(detail);
  });
});
