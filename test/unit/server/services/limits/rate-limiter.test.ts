import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { coreDb } from '../../../../helpers/core-db.js';
import { createRateLimiter } from '../../../../../src/server/features/limits/rate-limiter.js';
import { loadRequestCount } from '../../../../../src/server/storage/repositories/request-counters.js';

/** A clock the test moves by hand. */
function manualClock(iso: string) {
  let ms = Date.parse(iso);
  return { now: () => new Date(ms), advance: (deltaMs: number) => (ms += deltaMs) };
}

const epoch = (iso: string) => Date.parse(iso) / 1000;

describe('rate limiter', () => {
  it('allows exactly the per-minute limit, then 429 with Retry-After until the next minute', async () => {
    const clock = manualClock('2025-03-10T12:00:15Z');
    const limiter = await createRateLimiter({ db: coreDb(), clock });
    const hit = () => limiter.hitUser({ userId: 'usr_a', tier: 'free' });
    const first = await hit();
    expect(first).toEqual({ allowed: true, limit: 20, remaining: 19, reset: epoch('2025-03-10T12:01:00Z') });
    for (let i = 0; i < 19; i++) expect((await hit()).allowed).toBe(true);
    const denied = await hit();
    expect(denied).toEqual({ allowed: false, limit: 20, remaining: 0, reset: epoch('2025-03-10T12:01:00Z'), retryAfter: 45 });
    expect(await limiter.requestsToday('usr_a')).toBe(20);
    clock.advance(45_000);
    expect(await hit()).toMatchObject({ allowed: true, remaining: 19 });
    await limiter.close();
  });

  it('decides without a promise once the day is loaded; requests during the load share it and are all counted', async () => {
    const clock = manualClock('2025-03-10T12:00:15Z');
    const limiter = await createRateLimiter({ db: coreDb(), clock });
    const hit = () => limiter.hitUser({ userId: 'usr_a', tier: 'free' });
    // The user's first requests of the day wait for the day's persisted count, one load for them all.
    const loading = [hit(), hit(), hit()];
    for (const d of loading) expect(d).toBeInstanceOf(Promise);
    expect((await Promise.all(loading)).map((d) => d.remaining).sort()).toEqual([17, 18, 19]);
    const known = hit();
    expect(known).not.toBeInstanceOf(Promise);
    expect(known).toMatchObject({ allowed: true, remaining: 16 });
    // A new minute of the same day needs no load either.
    clock.advance(60_000);
    expect(hit()).toMatchObject({ allowed: true, remaining: 19 });
    expect(await limiter.requestsToday('usr_a')).toBe(5);
    await limiter.close();
  });

  it('binds on the day window when it is the smaller one, until 00:00 UTC', async () => {
    const clock = manualClock('2025-03-10T23:00:00Z');
    const limiter = await createRateLimiter({ db: coreDb(), clock });
    const hit = () => limiter.hitUser({ userId: 'usr_a', tier: 'free' });
    let last;
    for (let i = 0; i < 200; i++) {
      if (i % 20 === 0) clock.advance(60_000);
      last = await hit();
      expect(last.allowed).toBe(true);
    }
    expect(last).toMatchObject({ remaining: 0, reset: epoch('2025-03-11T00:00:00Z') });
    clock.advance(60_000);
    const denied = await hit();
    expect(denied).toMatchObject({ allowed: false, remaining: 0, reset: epoch('2025-03-11T00:00:00Z') });
    expect(denied.retryAfter).toBe(epoch('2025-03-11T00:00:00Z') - clock.now().getTime() / 1000);
    // After 00:00 UTC the day starts afresh (and so does requests_today).
    clock.advance(epoch('2025-03-11T00:00:01Z') * 1000 - clock.now().getTime());
    expect(await hit()).toMatchObject({ allowed: true, remaining: 19 });
    expect(await limiter.requestsToday('usr_a')).toBe(1);
    await limiter.close();
  });

  it('reports the smaller of minute and day remaining', async () => {
    const clock = manualClock('2025-03-10T10:00:00Z');
    const limiter = await createRateLimiter({ db: coreDb(), clock });
    for (let i = 0; i < 190; i++) {
      if (i % 20 === 0) clock.advance(60_000);
      await limiter.hitUser({ userId: 'usr_a', tier: 'free' });
    }
    clock.advance(60_000);
    // minute: 19 left, day: 9 left → 9, and the day is the binding window.
    expect(await limiter.hitUser({ userId: 'usr_a', tier: 'free' })).toMatchObject({ remaining: 9, reset: epoch('2025-03-11T00:00:00Z') });
    await limiter.close();
  });

  it('has no day limit for enterprise and follows a tier change at once', async () => {
    const clock = manualClock('2025-03-10T10:00:00Z');
    const limiter = await createRateLimiter({ db: coreDb(), clock });
    for (let i = 0; i < 20; i++) await limiter.hitUser({ userId: 'usr_a', tier: 'free' });
    expect((await limiter.hitUser({ userId: 'usr_a', tier: 'free' })).allowed).toBe(false);
    expect(await limiter.hitUser({ userId: 'usr_a', tier: 'enterprise' })).toMatchObject({ allowed: true, limit: 1000, remaining: 979 });
    await limiter.close();
  });

  it('limits anonymous callers per IP at 60/min and peeks without counting', async () => {
    const clock = manualClock('2025-03-10T10:00:30Z');
    const limiter = await createRateLimiter({ db: coreDb(), clock });
    for (let i = 0; i < 60; i++) expect(limiter.hitAnonymous('10.0.0.1').allowed).toBe(true);
    expect(limiter.hitAnonymous('10.0.0.1')).toMatchObject({ allowed: false, limit: 60, retryAfter: 30 });
    expect(limiter.hitAnonymous('10.0.0.2')).toMatchObject({ allowed: true, remaining: 59 });
    expect(limiter.peekAnonymous('10.0.0.3')).toMatchObject({ allowed: true, remaining: 60 });
    expect(limiter.peekAnonymous('10.0.0.3')).toMatchObject({ remaining: 60 });
    await limiter.close();
  });

  it('persists day counts on flush so a new limiter continues the day', async () => {
    const db = coreDb();
    const clock = manualClock('2025-03-10T10:00:00Z');
    const first = await createRateLimiter({ db, clock });
    for (let i = 0; i < 15; i++) await first.hitUser({ userId: 'usr_a', tier: 'free' });
    await first.close();
    expect(await loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(15);
    clock.advance(120_000);
    const second = await createRateLimiter({ db, clock });
    expect(await second.requestsToday('usr_a')).toBe(15);
    expect(await second.hitUser({ userId: 'usr_a', tier: 'free' })).toMatchObject({ remaining: 19 });
    for (let i = 0; i < 19; i++) await second.hitUser({ userId: 'usr_a', tier: 'free' });
    clock.advance(60_000);
    // Day: 15 + 20 = 35 used of 200 → the minute (19 left) binds.
    expect(await second.hitUser({ userId: 'usr_a', tier: 'free' })).toMatchObject({ remaining: 19 });
    expect(await second.requestsToday('usr_a')).toBe(36);
    await second.close();
    expect(await loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(36);
  });

  it('counts all keys of a user in one account window: a second key does not double the limit', async () => {
    const clock = manualClock('2025-03-10T12:00:00Z');
    const limiter = await createRateLimiter({ db: coreDb(), clock });
    // Keys are not even part of the input any more: the account is the only subject. The 70 requests
    // arrive together, before the account's window is loaded: they share one load and are all counted.
    const results = (await Promise.all(Array.from({ length: 70 }, () => limiter.hitUser({ userId: 'usr_a', tier: 'starter' })))).map((d) => d.allowed);
    expect(results.filter(Boolean)).toHaveLength(60);
    expect((await limiter.hitUser({ userId: 'usr_b', tier: 'starter' })).allowed).toBe(true);
    await limiter.close();
  });

  describe('with a journal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-journal-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('journals the requests of a turn in one write before releasing their answers, and a new limiter replays what was never flushed', async () => {
      const db = coreDb();
      const journalPath = join(dir, 'crash.journal');
      const clock = manualClock('2025-03-10T10:00:00Z');
      // flushMs far away and no close(): this limiter "dies" with 7 counts only in the journal.
      const dead = await createRateLimiter({ db, clock, journalPath, flushMs: 3_600_000 });
      let released = 0;
      dead.whenCountsWritten(() => released++);
      // Nothing counted yet: nothing to wait for.
      expect(released).toBe(1);
      await Promise.all(Array.from({ length: 7 }, () => dead.hitUser({ userId: 'usr_a', tier: 'free' })));
      const readLines = () => readFileSync(journalPath, 'utf8').split('\n').filter(Boolean);
      expect(readLines()).toHaveLength(0);
      // Counted, their answers held: the lines are written when the turn's requests have been handled.
      const writtenWhenReleased = await new Promise<number>((resolve) => dead.whenCountsWritten(() => resolve(readLines().length)));
      expect(writtenWhenReleased).toBe(7);
      expect(readLines().at(-1)).toBe('usr_a\t2025-03-10\t7');
      expect(await loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(0);
      const next = await createRateLimiter({ db, clock, journalPath });
      expect(await next.requestsToday('usr_a')).toBe(7);
      expect(await loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(7);
      expect(readFileSync(journalPath, 'utf8')).toBe('');
      await next.close();
      await dead.close();
    });

    it('keeps the journal lines of requests counted while a fold waits for the database', async () => {
      const db = coreDb();
      const journalPath = join(dir, 'overlap.journal');
      const clock = manualClock('2025-03-10T10:00:00Z');
      const limiter = await createRateLimiter({ db, clock, journalPath, flushMs: 3_600_000 });
      const user = { userId: 'usr_a', tier: 'free' } as const;
      await limiter.hitUser(user);
      // Another context's open transaction makes the fold wait; a request is counted meanwhile.
      let release!: () => void;
      const held = db.transaction(() => new Promise<void>((resolve) => (release = resolve)));
      const folding = limiter.flush();
      // Let the fold take its snapshot and queue behind the transaction.
      await new Promise((resolve) => setImmediate(resolve));
      await limiter.hitUser(user);
      await new Promise<void>((resolve) => limiter.whenCountsWritten(resolve));
      release();
      await held;
      await folding;
      // The fold saved the count it started with and left the newer line in the journal.
      expect(await loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(1);
      expect(readFileSync(journalPath, 'utf8').trim().split('\n').at(-1)).toBe('usr_a\t2025-03-10\t2');
      await limiter.flush();
      expect(await loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(2);
      expect(readFileSync(journalPath, 'utf8')).toBe('');
      await limiter.close();
    });

    it('replays idempotently when the fold was saved but the journal not yet emptied', async () => {
      const db = coreDb();
      const journalPath = join(dir, 'fold.journal');
      const clock = manualClock('2025-03-10T10:00:00Z');
      const first = await createRateLimiter({ db, clock, journalPath, flushMs: 3_600_000 });
      for (let i = 0; i < 5; i++) await first.hitUser({ userId: 'usr_a', tier: 'free' });
      const lines = readFileSync(journalPath, 'utf8');
      await first.close();
      // As if the process died between the commit and the truncate: the same lines are still there.
      writeFileSync(journalPath, lines);
      const second = await createRateLimiter({ db, clock, journalPath });
      expect(await second.requestsToday('usr_a')).toBe(5);
      await second.close();
    });
  });
});
