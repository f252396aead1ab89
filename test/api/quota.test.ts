import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { reserveCharacters } from '../../src/server/features/limits/quota.js';
import { updateUserSubscription, updateUserTier } from '../../src/server/features/accounts/users-repository.js';

const QUOTA = 'Character quota exceeded for this billing period';

describe('character quota over HTTP', () => {
  let server: TestServer;
  let speakerId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const speakers = await call(server, 'GET', '/v1/speakers?limit=1');
    speakerId = speakers.body.items[0].id;
  });
  afterAll(async () => server.close());

  const userWithUsage = async (email: string, used: number, tier = 'free') => {
    const created = await createUserWithKey(server.runtime.db, { email, tier, now: new Date() });
    if (used > 0) await reserveCharacters(server.runtime.db, { userId: created.user.id, characters: used, now: new Date() });
    return created;
  };
  const used = async (key: string) => (await call(server, 'GET', '/v1/users/usage', { key })).body.characters_used as number;

  it('answers 429 with the spec\'s message when a text does not fit, consuming nothing', async () => {
    const { key } = await userWithUsage('nearly@example.com', 9_995);
    const res = await call(server, 'POST', '/v1/tts/synthesize', { key: key.key, json: { speaker_id: speakerId, text: 'Hello there' } });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ detail: QUOTA, status_code: 429, request_id: res.headers.get('x-request-id'), code: 'quota_exceeded' });
    expect(await used(key.key)).toBe(9_995);
    const fits = await call(server, 'POST', '/v1/tts/synthesize', { key: key.key, json: { speaker_id: speakerId, text: 'Hi ✓🎙' } });
    expect(fits.status).toBe(200);
    // Code points, not UTF-16 units: 🎙 counts once.
    expect(fits.body.characters_used).toBe(5);
    expect(await used(key.key)).toBe(10_000);
  });

  it('never overshoots under 20 parallel synthesis requests: exactly those that fit succeed', async () => {
    // 70 characters left: 14 requests of "Hello" (5) fit, 6 must get 429. Starter: 60 requests a minute
    // leave room for the 20 requests and the checks (free allows only 20).
    const { key } = await userWithUsage('parallel@example.com', 100_000 - 70, 'starter');
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => call(server, 'POST', '/v1/tts/synthesize', { key: key.key, json: { speaker_id: speakerId, text: 'Hello' } })),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(14);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    for (const r of replies.filter((x) => x.status === 429)) expect(r.body.detail).toBe(QUOTA);
    expect(await used(key.key)).toBe(100_000);
  });

  it('applies a tier change to the quota at once', async () => {
    const { user, key } = await userWithUsage('upgrade@example.com', 10_000);
    expect((await call(server, 'POST', '/v1/tts/synthesize', { key: key.key, json: { speaker_id: speakerId, text: 'Hi' } })).status).toBe(429);
    await updateUserTier(server.runtime.db, user.id, 'starter');
    const usage = await call(server, 'GET', '/v1/users/usage', { key: key.key });
    expect(usage.body).toMatchObject({ characters_limit: 100_000, subscription_tier: 'starter', characters_used: 10_000 });
    expect((await call(server, 'POST', '/v1/tts/synthesize', { key: key.key, json: { speaker_id: speakerId, text: 'Hi' } })).status).toBe(200);
  });

  it('refuses synthesis to a cancelled subscription with 403, consuming nothing', async () => {
    const { user, key } = await userWithUsage('cancelled@example.com', 0);
    await updateUserSubscription(server.runtime.db, user.id, { status: 'cancelled', cancelAtPeriodEnd: false });
    const res = await call(server, 'POST', '/v1/tts/synthesize', { key: key.key, json: { speaker_id: speakerId, text: 'Hi' } });
    expect([res.status, res.body.detail]).toEqual([403, 'Subscription is cancelled']);
    expect(await used(key.key)).toBe(0);
  });
});
