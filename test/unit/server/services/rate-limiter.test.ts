import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { coreDb } from '../../../helpers/core-db.js';
import { createRateLimiter } from '../../../../src/server/services/rate-limiter.js';
import { loadRequestCount } from '../../../../src/server/storage/repositories/request-counters.js';

/** A clock the test moves by hand. */
function manualClock(iso: string) {
  let ms = Date.parse(iso);
  return { now: () => new Date(ms), advance: (deltaMs: number) => (ms += deltaMs) };
}

const epoch = (iso: string) => Date.parse(iso) / 1000;

describe('rate limiter', () => {
  it('allows exactly the per-minute limit, then 429 with Retry-After until the next minute', () => {
    const clock = manualClock('2025-03-10T12:00:15Z');
    const limiter = createRateLimiter({ db: coreDb(), clock });
    const hit = () => limiter.hitUser({ userId: 'usr_a', tier: 'free' });
    const first = hit();
    expect(first).toEqual({ allowed: true, limit: 20, remaining: 19, reset: epoch('2025-03-10T12:01:00Z') });
    for (let i = 0; i < 19; i++) expect(hit().allowed).toBe(true);
    const denied = hit();
    expect(denied).toEqual({ allowed: false, limit: 20, remaining: 0, reset: epoch('2025-03-10T12:01:00Z'), retryAfter: 45 });
    expect(limiter.requestsToday('usr_a')).toBe(20);
    clock.advance(45_000);
    expect(hit()).toMatchObject({ allowed: true, remaining: 19 });
    limiter.close();
  });

  it('binds on the day window when it is the smaller one, until 00:00 UTC', () => {
    const clock = manualClock('2025-03-10T23:00:00Z');
    const limiter = createRateLimiter({ db: coreDb(), clock });
    const hit = () => limiter.hitUser({ userId: 'usr_a', tier: 'free' });
    let last;
    for (let i = 0; i < 200; i++) {
      if (i % 20 === 0) clock.advance(60_000);
      last = hit();
      expect(last.allowed).toBe(true);
    }
    expect(last).toMatchObject({ remaining: 0, reset: epoch('2025-03-11T00:00:00Z') });
    clock.advance(60_000);
    const denied = hit();
    expect(denied).toMatchObject({ allowed: false, remaining: 0, reset: epoch('2025-03-11T00:00:00Z') });
    expect(denied.retryAfter).toBe(epoch('2025-03-11T00:00:00Z') - clock.now().getTime() / 1000);
    // After 00:00 UTC the day starts afresh (and so does requests_today).
    clock.advance(epoch('2025-03-11T00:00:01Z') * 1000 - clock.now().getTime());
    expect(hit()).toMatchObject({ allowed: true, remaining: 19 });
    expect(limiter.requestsToday('usr_a')).toBe(1);
    limiter.close();
  });

  it('reports the smaller of minute and day remaining', () => {
    const clock = manualClock('2025-03-10T10:00:00Z');
    const limiter = createRateLimiter({ db: coreDb(), clock });
    for (let i = 0; i < 190; i++) {
      if (i % 20 === 0) clock.advance(60_000);
      limiter.hitUser({ userId: 'usr_a', tier: 'free' });
    }
    clock.advance(60_000);
    // minute: 19 left, day: 9 left → 9, and the day is the binding window.
    expect(limiter.hitUser({ userId: 'usr_a', tier: 'free' })).toMatchObject({ remaining: 9, reset: epoch('2025-03-11T00:00:00Z') });
    limiter.close();
  });

  it('has no day limit for enterprise and follows a tier change at once', () => {
    const clock = manualClock('2025-03-10T10:00:00Z');
    const limiter = createRateLimiter({ db: coreDb(), clock });
    for (let i = 0; i < 20; i++) limiter.hitUser({ userId: 'usr_a', tier: 'free' });
    expect(limiter.hitUser({ userId: 'usr_a', tier: 'free' }).allowed).toBe(false);
    expect(limiter.hitUser({ userId: 'usr_a', tier: 'enterprise' })).toMatchObject({ allowed: true, limit: 1000, remaining: 979 });
    limiter.close();
  });

  it('limits anonymous callers per IP at 60/min and peeks without counting', () => {
    const clock = manualClock('2025-03-10T10:00:30Z');
    const limiter = createRateLimiter({ db: coreDb(), clock });
    for (let i = 0; i < 60; i++) expect(limiter.hitAnonymous('10.0.0.1').allowed).toBe(true);
    expect(limiter.hitAnonymous('10.0.0.1')).toMatchObject({ allowed: false, limit: 60, retryAfter: 30 });
    expect(limiter.hitAnonymous('10.0.0.2')).toMatchObject({ allowed: true, remaining: 59 });
    expect(limiter.peekAnonymous('10.0.0.3')).toMatchObject({ allowed: true, remaining: 60 });
    expect(limiter.peekAnonymous('10.0.0.3')).toMatchObject({ remaining: 60 });
    limiter.close();
  });

  it('persists day counts on flush so a new limiter continues the day', () => {
    const db = coreDb();
    const clock = manualClock('2025-03-10T10:00:00Z');
    const first = createRateLimiter({ db, clock });
    for (let i = 0; i < 15; i++) first.hitUser({ userId: 'usr_a', tier: 'free' });
    first.close();
    expect(loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(15);
    clock.advance(120_000);
    const second = createRateLimiter({ db, clock });
    expect(second.requestsToday('usr_a')).toBe(15);
    expect(second.hitUser({ userId: 'usr_a', tier: 'free' })).toMatchObject({ remaining: 19 });
    for (let i = 0; i < 19; i++) second.hitUser({ userId: 'usr_a', tier: 'free' });
    clock.advance(60_000);
    // Day: 15 + 20 = 35 used of 200 → the minute (19 left) binds.
    expect(second.hitUser({ userId: 'usr_a', tier: 'free' })).toMatchObject({ remaining: 19 });
    expect(second.requestsToday('usr_a')).toBe(36);
    second.close();
    expect(loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(36);
  });

  it('counts all keys of a user in one account window: a second key does not double the limit', () => {
    const clock = manualClock('2025-03-10T12:00:00Z');
    const limiter = createRateLimiter({ db: coreDb(), clock });
    // Keys are not even part of the input any more: the account is the only subject.
    const results = Array.from({ length: 70 }, () => limiter.hitUser({ userId: 'usr_a', tier: 'starter' }).allowed);
    expect(results.filter(Boolean)).toHaveLength(60);
    expect(limiter.hitUser({ userId: 'usr_b', tier: 'starter' }).allowed).toBe(true);
    limiter.close();
  });

  describe('with a journal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-journal-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('journals every counted request before returning, and a new limiter replays what was never flushed', () => {
      const db = coreDb();
      const journalPath = join(dir, 'crash.journal');
      const clock = manualClock('2025-03-10T10:00:00Z');
      // flushMs far away and no close(): this limiter "dies" with 7 counts only in the journal.
      const dead = createRateLimiter({ db, clock, journalPath, flushMs: 3_600_000 });
      for (let i = 0; i < 7; i++) dead.hitUser({ userId: 'usr_a', tier: 'free' });
      expect(readFileSync(journalPath, 'utf8').trim().split('\n')).toHaveLength(7);
      expect(loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(0);
      const next = createRateLimiter({ db, clock, journalPath });
      expect(next.requestsToday('usr_a')).toBe(7);
      expect(loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(7);
      expect(readFileSync(journalPath, 'utf8')).toBe('');
      next.close();
      dead.close();
    });

    it('replays idempotently when the fold was saved but the journal not yet emptied', () => {
      const db = coreDb();
      const journalPath = join(dir, 'fold.journal');
      const clock = manualClock('2025-03-10T10:00:00Z');
      const first = createRateLimiter({ db, clock, journalPath, flushMs: 3_600_000 });
      for (let i = 0; i < 5; i++) first.hitUser({ userId: 'usr_a', tier: 'free' });
      const lines = readFileSync(journalPath, 'utf8');
      first.close();
      // As if the process died between the commit and the truncate: the same lines are still there.
      writeFileSync(journalPath, lines);
      const second = createRateLimiter({ db, clock, journalPath });
      expect(second.requestsToday('usr_a')).toBe(5);
      second.close();
    });
  });
});
