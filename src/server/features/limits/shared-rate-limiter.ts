import type { Db } from '../../storage/db.js';
import type { Clock } from '../../clock.js';
import { TIER_LIMITS } from '../accounts/index.js';
import { ANONYMOUS_PER_MINUTE } from '../../../shared/tier-limits.js';
import type { RateLimiter } from './rate-limiter.js';
import { hitRateWindows, peekRateWindow, type RateWindow } from './rate-windows-repository.js';
import { decisionFor, utcDay, type RateDecision } from './rate-decision.js';

/** The limiter of several instances on one PostgreSQL (DESIGN §9.4): counts are committed in the database. */
export interface SharedRateLimiter extends RateLimiter {
  hitAnonymous(ip: string): Promise<RateDecision>;
}


interface Waiting {
  perMinute: number;
  perDay: number | null;
  /** In arrival order: the first `granted` of them are allowed. */
  waiters: { resolve(d: RateDecision): void; reject(err: unknown): void }[];
}

/**
 * Windows live in the database, one row per subject (user id, or `ip:` + address). The requests of one
 * event-loop turn are counted together: one statement per turn for all their subjects, each subject's
 * requests granted in arrival order while both its windows have room. The row locks of that statement
 * order every instance's counts per subject, so N instances together grant exactly the limit and the
 * headers carry the shared count; a count is committed before its response leaves. Batching costs no
 * latency (the turn ends at once) and saves a round trip and a transaction per request under load.
 * `peekAnonymous` (error responses that never reached the counting hook) answers from the last count
 * this instance saw, without a round trip.
 */
export function createSharedRateLimiter(opts: { db: Db; clock: Clock }): SharedRateLimiter {
  const { db, clock } = opts;
  const lastSeen = new Map<string, RateWindow>();
  let pending = new Map<string, Waiting>();

  const flush = async (batch: Map<string, Waiting>): Promise<void> => {
    const nowMs = clock.now().getTime();
    const minute = Math.floor(nowMs / 60_000);
    const day = utcDay(nowMs);
    let outcomes;
    try {
      outcomes = await hitRateWindows(
        db,
        [...batch].map(([subject, w]) => ({ subject, minute, day, n: w.waiters.length, perMinute: w.perMinute, perDay: w.perDay })),
      );
    } catch (err) {
      for (const w of batch.values()) for (const waiter of w.waiters) waiter.reject(err);
      return;
    }
    for (const o of outcomes) {
      const w = batch.get(o.subject)!;
      if (o.subject.startsWith('ip:')) lastSeen.set(o.subject, o);
      // The counts each granted request would have seen had it been counted alone, in arrival order.
      const firstMinute = o.minuteCount - o.granted;
      const firstDay = o.dayCount - o.granted;
      w.waiters.forEach((waiter, i) => {
        const allowed = i < o.granted;
        const counts = allowed ? { ...o, minuteCount: firstMinute + i + 1, dayCount: firstDay + i + 1 } : o;
        waiter.resolve(decisionFor(counts, { perMinute: w.perMinute, perDay: w.perDay, nowMs, allowed }));
      });
    }
  };

  const hit = (subject: string, perMinute: number, perDay: number | null): Promise<RateDecision> =>
    new Promise((resolve, reject) => {
      if (pending.size === 0) {
        setImmediate(() => {
          const batch = pending;
          pending = new Map();
          void flush(batch);
        });
      }
      let w = pending.get(subject);
      if (!w) pending.set(subject, (w = { perMinute, perDay, waiters: [] }));
      w.waiters.push({ resolve, reject });
    });

  return {
    hitUser: ({ userId, tier }) => hit(userId, TIER_LIMITS[tier].perMinute, TIER_LIMITS[tier].perDay),
    hitAnonymous: (ip) => hit(`ip:${ip}`, ANONYMOUS_PER_MINUTE, null),
    peekAnonymous(ip) {
      const nowMs = clock.now().getTime();
      const w = lastSeen.get(`ip:${ip}`) ?? { minute: Math.floor(nowMs / 60_000), minuteCount: 0, day: utcDay(nowMs), dayCount: 0 };
      const spent = w.minute === Math.floor(nowMs / 60_000) && w.minuteCount >= ANONYMOUS_PER_MINUTE;
      return decisionFor(w, { perMinute: ANONYMOUS_PER_MINUTE, perDay: null, nowMs, allowed: !spent });
    },
    async requestsToday(userId) {
      const w = await peekRateWindow(db, userId);
      return w && w.day === utcDay(clock.now().getTime()) ? w.dayCount : 0;
    },
    // A count is committed in the database before its decision is returned.
    whenCountsWritten: (release) => release(),
    async flush() {},
    async close() {
      lastSeen.clear();
    },
  };
}
