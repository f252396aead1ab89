import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { createApiKey } from '../../src/server/features/accounts/keys.js';
import { updateUserTier } from '../../src/server/features/accounts/users-repository.js';
import { storedBytes } from '../helpers/backend-db.js';

const UNAUTHORIZED = 'Invalid or expired API key';

describe('authentication and permissions', () => {
  let server: TestServer;
  let readKey: string;
  beforeAll(async () => {
    server = await startTestServer();
    readKey = (await call(server, 'POST', '/v1/keys', { key: server.key, json: { name: 'reader', scope: 'read' } })).body.key;
  });
  afterAll(async () => server.close());

  it('answers 401 with the exact envelope without a key', async () => {
    const res = await call(server, 'GET', '/v1/users/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: UNAUTHORIZED, status_code: 401, request_id: res.headers.get('x-request-id'), code: 'authentication_failed' });
  });

  it.each([
    ['a garbled key', { authorization: 'Bearer vox_garbage' }],
    ['a well-formed unknown key', { authorization: `Bearer vox_${'x'.repeat(40)}` }],
    ['another scheme', { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` }],
    ['an empty Bearer', { authorization: 'Bearer ' }],
    ['a key without scheme', { authorization: 'vox_' + 'T'.repeat(40) }],
    ['two keys', { authorization: `Bearer ${'vox_' + 'T'.repeat(40)} vox_${'T'.repeat(40)}` }],
  ])('answers 401 for %s', async (_name, headers) => {
    const res = await call(server, 'GET', '/v1/users/me', { headers });
    expect([res.status, res.body.detail]).toEqual([401, UNAUTHORIZED]);
  });

  it('accepts the scheme in any case', async () => {
    const res = await call(server, 'GET', '/v1/users/me', { headers: { authorization: `bearer ${server.key}` } });
    expect(res.status).toBe(200);
  });

  it('answers a public route with a bad key as without one, and identifies a valid one there', async () => {
    const anonymous = await call(server, 'GET', '/health');
    expect(anonymous.headers.get('x-ratelimit-limit')).toBe('60');
    const bad = await call(server, 'GET', '/health', { key: 'vox_nope' });
    expect([bad.status, bad.body.status, bad.headers.get('x-ratelimit-limit')]).toEqual([200, 'ok', '60']);
    const identified = await call(server, 'GET', '/health', { key: server.key });
    expect(identified.status).toBe(200);
    expect(identified.headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('answers the public accuracy route alike for no key, a read key and a bad key (DESIGN §4.15)', async () => {
    const json = { reference: 'the cat sat', hypothesis: 'the cat sit' };
    const none = await call(server, 'POST', '/v1/stt/calculate-accuracy', { json });
    expect(none.status).toBe(200);
    for (const key of [readKey, server.key, 'vox_nope', `vox_${'x'.repeat(40)}`]) {
      const res = await call(server, 'POST', '/v1/stt/calculate-accuracy', { key, json });
      expect([key.slice(0, 8), res.status, res.body]).toEqual([key.slice(0, 8), 200, none.body]);
    }
    const bad = await call(server, 'POST', '/v1/stt/calculate-accuracy', { key: readKey, json: { reference: '', hypothesis: 'a' } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'Reference must contain at least one word']);
  });

  it('refuses the billing portal to a read key: the portal changes the account (403)', async () => {
    const res = await call(server, 'GET', '/v1/billing/portal', { key: readKey });
    expect(res.body).toEqual({ detail: 'Insufficient permissions', status_code: 403, request_id: res.headers.get('x-request-id'), code: 'forbidden' });
    expect((await call(server, 'GET', '/v1/billing/subscription', { key: readKey })).status).toBe(200);
    expect((await call(server, 'GET', '/v1/billing/portal', { key: server.key })).status).toBe(200);
  });

  it('answers 401 before looking at the body', async () => {
    const res = await call(server, 'POST', '/v1/keys', { body: '{not json', headers: { 'content-type': 'application/json' } });
    expect([res.status, res.body.detail]).toEqual([401, UNAUTHORIZED]);
  });

  it('lets a read key read but not write (403 Insufficient permissions, before body validation)', async () => {
    expect((await call(server, 'GET', '/v1/users/me', { key: readKey })).status).toBe(200);
    expect((await call(server, 'GET', '/v1/keys', { key: readKey })).status).toBe(200);
    for (const [method, path] of [
      ['POST', '/v1/keys'],
      ['DELETE', '/v1/keys/key_whatever'],
      ['POST', '/v1/tts/synthesize'],
      ['PUT', '/v1/users/me'],
      ['PATCH', '/v1/users/me'],
    ] as const) {
      const res = await call(server, method, path, { key: readKey, json: { junk: true } });
      expect([method, path, res.status, res.body.detail]).toEqual([method, path, 403, 'Insufficient permissions']);
    }
  });

  it('stops accepting a key as soon as it is deleted', async () => {
    const created = await call(server, 'POST', '/v1/keys', { key: server.key, json: { name: 'temp' } });
    expect((await call(server, 'GET', '/v1/users/me', { key: created.body.key })).status).toBe(200);
    expect((await call(server, 'DELETE', `/v1/keys/${created.body.id}`, { key: server.key })).status).toBe(204);
    const res = await call(server, 'GET', '/v1/users/me', { key: created.body.key });
    expect([res.status, res.body.detail]).toEqual([401, UNAUTHORIZED]);
  });

  it('reads the tier from the database on every request', async () => {
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'tier@example.com', tier: 'free', now: new Date() });
    expect((await call(server, 'GET', '/v1/users/me', { key: key.key })).headers.get('x-ratelimit-limit')).toBe('20');
    await updateUserTier(server.runtime.db, user.id, 'enterprise');
    const after = await call(server, 'GET', '/v1/users/me', { key: key.key });
    expect(after.body.subscription_tier).toBe('enterprise');
    expect(after.headers.get('x-ratelimit-limit')).toBe('1000');
  });

  it('never writes a plaintext key to the database', async () => {
    const keys = [server.key, readKey];
    for (let i = 0; i < 3; i++) keys.push((await call(server, 'POST', '/v1/keys', { key: server.key, json: {} })).body.key);
    const other = await createUserWithKey(server.runtime.db, { email: 'plain@example.com', now: new Date() });
    keys.push(other.key.key, (await createApiKey(server.runtime.db, { userId: other.user.id, now: new Date() })).key);
    const bytes = await storedBytes(server);
    for (const key of keys) {
      expect(key).toMatch(/^vox_[A-Za-z0-9_-]{40}$/);
      expect(bytes.includes(Buffer.from(key))).toBe(false);
      // Not even the secret part alone (only the 8-char display prefix `vox_xxxx` is kept).
      expect(bytes.includes(Buffer.from(key.slice(8)))).toBe(false);
    }
    // The hashes are there: the check above looked at the right bytes.
    const { createHash } = await import('node:crypto');
    expect(bytes.includes(Buffer.from(createHash('sha256').update(server.key).digest('hex')))).toBe(true);
  });
});
