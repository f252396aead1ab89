import type { Db } from '../storage/db.js';
import type { Clock } from '../clock.js';
import { ANONYMOUS_PER_MINUTE, TIER_LIMITS } from './tiers.js';
import type { RateLimiter } from './rate-limiter.js';
import { hitRateWindow, peekRateWindow, type RateWindow } from '../storage/repositories/rate-windows.js';
import { decisionFor, type RateDecision } from './rate-decision.js';

/** The limiter of several instances on one PostgreSQL (DESIGN §9.4): every count is one atomic upsert. */
export interface SharedRateLimiter extends RateLimiter {
  hitAnonymous(ip: string): Promise<RateDecision>;
}

const dayOf = (nowMs: number) => new Date(nowMs).toISOString().slice(0, 10);

/**
 * Windows live in the database, one row per subject (user id, or `ip:` + address): the request is counted
 * and checked against both limits in one statement, under the row lock the upsert takes, so N instances
 * together grant exactly the limit and the headers carry the shared count. Nothing is kept to flush: a
 * count is committed before the response leaves. `peekAnonymous` (error responses that never reached the
 * counting hook) answers from the last count this instance saw, without a round trip.
 */
export function createSharedRateLimiter(opts: { db: Db; clock: Clock }): SharedRateLimiter {
  const { db, clock } = opts;
  const lastSeen = new Map<string, RateWindow>();

  const hit = async (subject: string, perMinute: number, perDay: number | null): Promise<RateDecision> => {
    const nowMs = clock.now().getTime();
    const minute = Math.floor(nowMs / 60_000);
    const day = dayOf(nowMs);
    const counted = await hitRateWindow(db, { subject, minute, day, perMinute, perDay });
    const w = counted ?? (await peekRateWindow(db, subject)) ?? { minute, minuteCount: 0, day, dayCount: 0 };
    if (subject.startsWith('ip:')) lastSeen.set(subject, w);
    return decisionFor(w, { perMinute, perDay, nowMs, allowed: counted !== undefined });
  };

  return {
    hitUser: ({ userId, tier }) => hit(userId, TIER_LIMITS[tier].perMinute, TIER_LIMITS[tier].perDay),
    hitAnonymous: (ip) => hit(`ip:${ip}`, ANONYMOUS_PER_MINUTE, null),
    peekAnonymous(ip) {
      const nowMs = clock.now().getTime();
      const w = lastSeen.get(`ip:${ip}`) ?? { minute: Math.floor(nowMs / 60_000), minuteCount: 0, day: dayOf(nowMs), dayCount: 0 };
      const spent = w.minute === Math.floor(nowMs / 60_000) && w.minuteCount >= ANONYMOUS_PER_MINUTE;
      return decisionFor(w, { perMinute: ANONYMOUS_PER_MINUTE, perDay: null, nowMs, allowed: !spent });
    },
    async requestsToday(userId) {
      const w = await peekRateWindow(db, userId);
      return w && w.day === dayOf(clock.now().getTime()) ? w.dayCount : 0;
    },
    async flush() {},
    async close() {
      lastSeen.clear();
    },
  };
}
