import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { call, manualClock } from '../helpers/core-http.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { reserveCharacters } from '../../src/server/features/limits/quota.js';

describe('/v1/users', () => {
  let server: TestServer;
  const clock = manualClock('2025-02-10T08:30:00Z');
  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(async () => server.close());

  it('GET /v1/users/me returns the bootstrap user', async () => {
    const res = await call(server, 'GET', '/v1/users/me', { key: server.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^usr_/),
      email: 'admin@localhost',
      name: 'Administrator',
      subscription_tier: 'pro',
      created_at: '2025-02-10T08:30:00.000Z',
    });
  });

  it('GET /v1/users/usage reports the calendar month in UTC and counts today\'s requests', async () => {
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'usage@example.com', tier: 'starter', now: clock.now() });
    await reserveCharacters(server.runtime.db, { userId: user.id, characters: 1234, now: clock.now() });
    const first = await call(server, 'GET', '/v1/users/usage', { key: key.key });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      characters_used: 1234,
      characters_limit: 100_000,
      requests_today: 1,
      period_start: '2025-02-01',
      period_end: '2025-02-28',
      subscription_tier: 'starter',
    });
    await call(server, 'GET', '/v1/users/me', { key: key.key });
    await call(server, 'GET', '/health', { key: key.key });
    await call(server, 'GET', '/v1/nothing-here', { key: key.key });
    expect((await call(server, 'GET', '/v1/users/usage', { key: key.key })).body.requests_today).toBe(5);
    // Unauthenticated requests are not the user's.
    await call(server, 'GET', '/v1/users/usage');
    expect((await call(server, 'GET', '/v1/users/usage', { key: key.key })).body.requests_today).toBe(6);
    clock.set('2025-02-11T00:00:00Z');
    expect((await call(server, 'GET', '/v1/users/usage', { key: key.key })).body.requests_today).toBe(1);
    clock.set('2025-03-01T00:00:00Z');
    expect((await call(server, 'GET', '/v1/users/usage', { key: key.key })).body).toMatchObject({
      characters_used: 0,
      period_start: '2025-03-01',
      period_end: '2025-03-31',
    });
    clock.set('2025-02-10T08:30:00Z');
  });

  it('keeps users apart: each key sees its own profile and usage', async () => {
    const a = await createUserWithKey(server.runtime.db, { email: 'a@example.com', name: 'A', tier: 'free', now: clock.now() });
    const b = await createUserWithKey(server.runtime.db, { email: 'b@example.com', tier: 'enterprise', now: clock.now() });
    await reserveCharacters(server.runtime.db, { userId: a.user.id, characters: 77, now: clock.now() });
    const meA = await call(server, 'GET', '/v1/users/me', { key: a.key.key });
    const meB = await call(server, 'GET', '/v1/users/me', { key: b.key.key });
    expect(meA.body).toMatchObject({ id: a.user.id, email: 'a@example.com', name: 'A', subscription_tier: 'free' });
    expect(meB.body).toMatchObject({ id: b.user.id, email: 'b@example.com', subscription_tier: 'enterprise' });
    expect(meB.body).not.toHaveProperty('name');
    expect((await call(server, 'GET', '/v1/users/usage', { key: a.key.key })).body).toMatchObject({ characters_used: 77, characters_limit: 10_000 });
    expect((await call(server, 'GET', '/v1/users/usage', { key: b.key.key })).body).toMatchObject({ characters_used: 0, characters_limit: 10_000_000 });
  });

  it('answers 401 without a key', async () => {
    for (const path of ['/v1/users/me', '/v1/users/usage']) {
      const res = await call(server, 'GET', path);
      expect([res.status, res.body.detail]).toEqual([401, 'Invalid or expired API key']);
    }
  });
});

describe('requests_today across a restart', () => {
  it('continues the day count from the database', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-restart-'));
    const clock = manualClock('2025-02-10T08:30:00Z');
    try {
      const first = await startTestServer({ dataDir, clock });
      const free = await createUserWithKey(first.runtime.db, { email: 'free@example.com', tier: 'free', now: clock.now() });
      for (let i = 0; i < 7; i++) await call(first, 'GET', '/v1/users/me', { key: TEST_KEY });
      for (let i = 0; i < 190; i++) {
        if (i % 20 === 0) clock.advance(60_000);
        expect((await call(first, 'GET', '/v1/users/me', { key: free.key.key })).status).toBe(200);
      }
      await first.close();
      const second = await startTestServer({ dataDir, clock });
      const res = await call(second, 'GET', '/v1/users/usage', { key: TEST_KEY });
      expect(res.body.requests_today).toBe(8);
      // The day window carried over too: the free key spent 191 of its 200 a day; 9 are left, not 19.
      const freeRes = await call(second, 'GET', '/v1/users/usage', { key: free.key.key });
      expect(freeRes.body.requests_today).toBe(191);
      expect(freeRes.headers.get('x-ratelimit-remaining')).toBe('9');
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
