import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import type { Db } from '../../src/server/storage/sql/types.js';
import { createSharedRateLimiter } from '../../src/server/features/limits/shared-rate-limiter.js';
import { manualClock } from '../helpers/core-http.js';
import { createTestDatabase } from '../helpers/postgres.js';

// Two handles with a limiter each are two instances on one PostgreSQL (DESIGN §9.4).
let a: Db;
let b: Db;
let drop: () => Promise<void>;
beforeAll(async () => {
  const t = await createTestDatabase();
  drop = t.drop;
  a = createPostgresDb({ connectionString: t.url, max: 4 });
  b = createPostgresDb({ connectionString: t.url, max: 4 });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await drop?.();
});

describe('shared rate limiter (one statement per turn, row locks across instances)', () => {
  it('grants exactly the minute limit to 70 requests of one turn, in arrival order, with exact headers', async () => {
    const clock = manualClock('2026-11-22T10:00:05Z');
    const limiter = createSharedRateLimiter({ db: a, clock });
    const decisions = await Promise.all(Array.from({ length: 70 }, () => limiter.hitUser({ userId: 'usr_turn', tier: 'starter' })));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    expect(decisions.slice(0, 60).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(0, 60).map((d) => d.remaining)).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    expect(decisions[60]).toMatchObject({ allowed: false, remaining: 0, retryAfter: 55 });
    expect(await limiter.requestsToday('usr_turn')).toBe(60);
  });

  it('two instances sending 45 requests each at once grant 60 together; the day window holds across minutes', async () => {
    const clock = manualClock('2026-11-22T11:00:00Z');
    const one = createSharedRateLimiter({ db: a, clock });
    const two = createSharedRateLimiter({ db: b, clock });
    const both = await Promise.all(
      Array.from({ length: 90 }, (_, i) => (i % 2 ? one : two).hitUser({ userId: 'usr_pair', tier: 'starter' })),
    );
    expect(both.filter((d) => d.allowed)).toHaveLength(60);
    // A free user: 200 a day, 20 a minute — ten minutes of 25 requests give 200, then the day is spent.
    let granted = 0;
    for (let m = 0; m < 11; m++) {
      clock.set(`2026-11-22T12:${String(m).padStart(2, '0')}:30Z`);
      const burst = await Promise.all(Array.from({ length: 25 }, (_, i) => (i % 2 ? one : two).hitUser({ userId: 'usr_free', tier: 'free' })));
      granted += burst.filter((d) => d.allowed).length;
    }
    expect(granted).toBe(200);
    clock.set('2026-11-23T00:00:30Z');
    expect((await one.hitUser({ userId: 'usr_free', tier: 'free' })).allowed).toBe(true);
  });

  it('an instance whose clock lags cannot reopen a minute another instance has spent', async () => {
    const ahead = manualClock('2026-11-22T13:01:10Z');
    const behind = manualClock('2026-11-22T13:00:50Z');
    const fast = createSharedRateLimiter({ db: a, clock: ahead });
    const slow = createSharedRateLimiter({ db: b, clock: behind });
    const spent = await Promise.all(Array.from({ length: 20 }, () => fast.hitUser({ userId: 'usr_skew', tier: 'free' })));
    expect(spent.every((d) => d.allowed)).toBe(true);
    expect((await slow.hitUser({ userId: 'usr_skew', tier: 'free' })).allowed).toBe(false);
  });

  it('limits anonymous callers per address and shows the last count to peekAnonymous', async () => {
    const clock = manualClock('2026-11-22T14:00:00Z');
    const limiter = createSharedRateLimiter({ db: a, clock });
    const hits = await Promise.all(Array.from({ length: 61 }, () => limiter.hitAnonymous('203.0.113.9')));
    expect(hits.filter((d) => d.allowed)).toHaveLength(60);
    expect(limiter.peekAnonymous('203.0.113.9')).toMatchObject({ allowed: false, remaining: 0 });
    expect(limiter.peekAnonymous('203.0.113.10')).toMatchObject({ allowed: true, remaining: 60 });
  });
});
