import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, manualClock } from '../helpers/core-http.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';

const epoch = (iso: string) => String(Date.parse(iso) / 1000);

/** Any speaker id of the catalogue. */
async function firstSpeaker(s: TestServer): Promise<string> {
  return (await call(s, 'GET', '/v1/speakers?limit=1', { key: s.key })).body.items[0].id as string;
}

describe('rate limits', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('lets exactly the per-minute limit through under 50 parallel requests of one key', async () => {
    const clock = manualClock('2025-03-10T12:00:15Z');
    server = await startTestServer({ clock });
    const { key } = await createUserWithKey(server.runtime.db, { email: 'free@example.com', tier: 'free', now: clock.now() });
    const s = server;
    const replies = await Promise.all(Array.from({ length: 50 }, () => call(s, 'GET', '/v1/users/me', { key: key.key })));
    const ok = replies.filter((r) => r.status === 200);
    const limited = replies.filter((r) => r.status === 429);
    expect(ok).toHaveLength(20);
    expect(limited).toHaveLength(30);
    expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    for (const r of limited) {
      expect(r.body).toEqual({ detail: 'Rate limit exceeded', status_code: 429, request_id: r.headers.get('x-request-id'), code: 'rate_limited' });
      expect(r.headers.get('retry-after')).toBe('45');
      expect(r.headers.get('x-ratelimit-limit')).toBe('20');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(r.headers.get('x-ratelimit-reset')).toBe(epoch('2025-03-10T12:01:00Z'));
    }
    // Other users are not affected; the next minute opens the window again.
    expect((await call(s, 'GET', '/v1/users/me', { key: s.key })).status).toBe(200);
    clock.advance(45_000);
    const next = await call(s, 'GET', '/v1/users/me', { key: key.key });
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('19');
    expect(next.headers.get('x-ratelimit-reset')).toBe(epoch('2025-03-10T12:02:00Z'));
  });

  it('applies the day window with its reset at 00:00 UTC, to every key of the account', async () => {
    const clock = manualClock('2025-03-10T22:00:00Z');
    server = await startTestServer({ clock });
    const s = server;
    const { user, key } = await createUserWithKey(s.runtime.db, { email: 'day@example.com', tier: 'free', now: clock.now() });
    for (let i = 0; i < 200; i++) {
      if (i % 20 === 0) clock.advance(60_000);
      expect((await call(s, 'GET', '/v1/users/me', { key: key.key })).status).toBe(200);
    }
    clock.advance(60_000);
    const denied = await call(s, 'GET', '/v1/users/me', { key: key.key });
    expect(denied.status).toBe(429);
    expect(denied.headers.get('x-ratelimit-reset')).toBe(epoch('2025-03-11T00:00:00Z'));
    expect(Number(denied.headers.get('retry-after'))).toBe((Date.parse('2025-03-11T00:00:00Z') - clock.now().getTime()) / 1000);
    // A fresh key of the same user starts no fresh day: the windows belong to the account (DESIGN §4.14).
    const { createApiKey } = await import('../../src/server/features/accounts/keys.js');
    const other = await createApiKey(s.runtime.db, { userId: user.id, now: clock.now() });
    expect((await call(s, 'GET', '/v1/users/me', { key: other.key })).status).toBe(429);
    clock.set('2025-03-11T00:00:00Z');
    expect((await call(s, 'GET', '/v1/users/me', { key: key.key })).status).toBe(200);
    expect((await call(s, 'GET', '/v1/users/me', { key: other.key })).status).toBe(200);
  });

  it('shares the minute window among all keys of a user: two keys of a starter user get exactly 60 through', async () => {
    const clock = manualClock('2025-03-10T12:00:00Z');
    server = await startTestServer({ clock });
    const s = server;
    const { user, key } = await createUserWithKey(s.runtime.db, { email: 'starter@example.com', tier: 'starter', now: clock.now() });
    const second = (await call(s, 'POST', '/v1/keys', { key: key.key, json: { name: 'second' } })).body.key as string;
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call(s, 'GET', '/v1/users/me', { key: i % 2 === 0 ? key.key : second })),
    );
    // The POST /v1/keys above was the account's first request of the minute.
    expect(replies.filter((r) => r.status === 200)).toHaveLength(59);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(41);
    expect((await call(s, 'GET', '/v1/users/me', { key: second })).status).toBe(429);
    expect(await s.runtime.rateLimiter.requestsToday(user.id)).toBe(60);
  });

  it('limits anonymous requests per client IP at 60 a minute', async () => {
    const clock = manualClock('2025-03-10T12:00:00Z');
    server = await startTestServer({ clock });
    const s = server;
    const replies = await Promise.all(Array.from({ length: 100 }, () => call(s, 'GET', '/v1/speakers?limit=1')));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(60);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(40);
    expect(limited[0]!.headers.get('retry-after')).toBe('60');
    // Bad keys count against the IP as well (no free guessing), and a valid key is not held back by it.
    const badKey = await call(s, 'GET', '/v1/users/me', { key: 'vox_guess' });
    expect(badKey.status).toBe(429);
    expect((await call(s, 'GET', '/v1/speakers?limit=1', { key: s.key })).status).toBe(200);
    // The liveness check is never counted per IP, nor refused when the bucket is spent (DESIGN §7).
    expect((await call(s, 'GET', '/health')).status).toBe(200);
  });

  it('does not count /health or signed audio URLs against the anonymous per-IP bucket (DESIGN §7)', async () => {
    server = await startTestServer();
    const s = server;
    const synth = await call(s, 'POST', '/v1/tts/synthesize', { key: s.key, json: { speaker_id: await firstSpeaker(s), text: 'Hello.' } });
    expect(synth.status).toBe(200);
    for (let i = 0; i < 200; i++) {
      const r = await call(s, 'GET', '/health');
      expect([i, r.status]).toEqual([i, 200]);
      expect(r.headers.get('x-ratelimit-remaining')).toBe('60');
    }
    for (let i = 0; i < 150; i++) {
      const r = await fetch(synth.body.audio_url as string);
      await r.arrayBuffer();
      expect([i, r.status]).toEqual([i, 200]);
      expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    }
    // The bucket is untouched for what it does limit.
    const counted = await call(s, 'GET', '/v1/speakers?limit=1');
    expect(counted.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('puts the three headers on every response: 200, 201, 204, 400, 401, 403, 404, 413, 414, 415', async () => {
    server = await startTestServer();
    const s = server;
    const read = (await call(s, 'POST', '/v1/keys', { key: s.key, json: { scope: 'read' } })).body.key as string;
    const doomed = (await call(s, 'POST', '/v1/keys', { key: s.key, json: {} })).body.id as string;
    const cases: [number, Promise<Awaited<ReturnType<typeof call>>>][] = [
      [200, call(s, 'GET', '/health')],
      [201, call(s, 'POST', '/v1/keys', { key: s.key, json: {} })],
      [204, call(s, 'DELETE', `/v1/keys/${doomed}`, { key: s.key })],
      [400, call(s, 'GET', '/v1/keys?limit=0', { key: s.key })],
      [401, call(s, 'GET', '/v1/users/me')],
      [403, call(s, 'POST', '/v1/keys', { key: read, json: {} })],
      [404, call(s, 'GET', '/v1/nope', { key: s.key })],
      [413, call(s, 'POST', '/v1/keys', { key: s.key, body: JSON.stringify({ name: 'x'.repeat(1_100_000) }), headers: { 'content-type': 'application/json' } })],
      [415, call(s, 'POST', '/v1/keys', { key: s.key, body: '<name>x</name>', headers: { 'content-type': 'application/xml' } })],
      [414, call(s, 'DELETE', `/v1/keys/${'k'.repeat(600)}`, { key: s.key })],
      [400, call(s, 'GET', '/v1/speakers/%E0%A4%A')],
    ];
    for (const [status, pending] of cases) {
      const r = await pending;
      expect(r.status).toBe(status);
      for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
        expect([status, h, r.headers.get(h)]).toEqual([status, h, expect.stringMatching(/^\d+$/)]);
      }
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    }
  });
});
