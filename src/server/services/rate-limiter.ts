import type { Db } from '../storage/db.js';
import { deleteRequestCountsBefore, loadRequestCount, saveRequestCounts } from '../storage/repositories/request-counters.js';
import type { Clock } from '../clock.js';
import { ANONYMOUS_PER_MINUTE, TIER_LIMITS, type Tier } from './tiers.js';

/** The outcome of counting one request, with the values of the three X-RateLimit-* headers. */
export interface RateDecision {
  allowed: boolean;
  /** Per-minute limit. */
  limit: number;
  /** The smaller of the minute and day remaining. */
  remaining: number;
  /** Unix epoch seconds when the binding window resets. */
  reset: number;
  /** Seconds to wait (only when not allowed). */
  retryAfter?: number;
}

/** Per-key minute and day windows, per-IP minute window for anonymous callers, and requests today per user. */
export interface RateLimiter {
  /** Counts one request made with key `keyId` of `userId` (tier read from the db for this request). */
  hitKey(opts: { keyId: string; userId: string; tier: Tier }): RateDecision;
  /** Counts one request without a valid key, per client IP. */
  hitAnonymous(ip: string): RateDecision;
  /** The headers for an IP without counting (responses that never reached the counting hook). */
  peekAnonymous(ip: string): RateDecision;
  /** Authenticated requests of the user since 00:00 UTC. */
  requestsToday(userId: string): number;
  /** Writes changed day counts to the database. */
  flush(): void;
  /** Stops the flush timer and flushes one last time. */
  close(): void;
}

interface Window {
  minute: number;
  minuteCount: number;
  day: string;
  dayCount: number;
}

const DAY_MS = 86_400_000;

/**
 * Counters live in memory (one map lookup per request on the hot path; Node runs hooks one at a time, so
 * counts are exact under any concurrency). Day counts are loaded from the db when a subject is first seen
 * on a day and flushed every `flushMs` and on close, so a restart keeps the day window and requests_today.
 */
export function createRateLimiter(opts: { db: Db; clock: Clock; flushMs?: number }): RateLimiter {
  const { db, clock } = opts;
  const windows = new Map<string, Window>();
  const users = new Map<string, { day: string; count: number }>();
  const dirty = new Set<string>();

  const windowOf = (subject: string, nowMs: number, persisted: boolean): Window => {
    const minute = Math.floor(nowMs / 60_000);
    const day = new Date(nowMs).toISOString().slice(0, 10);
    let w = windows.get(subject);
    if (!w) {
      w = { minute, minuteCount: 0, day, dayCount: persisted ? loadRequestCount(db, subject, day) : 0 };
      windows.set(subject, w);
    }
    if (w.minute !== minute) {
      w.minute = minute;
      w.minuteCount = 0;
    }
    if (w.day !== day) {
      w.day = day;
      w.dayCount = persisted ? loadRequestCount(db, subject, day) : 0;
    }
    return w;
  };

  const decide = (w: Window, perMinute: number, perDay: number | null, nowMs: number, count: boolean): RateDecision => {
    const minuteReset = (w.minute + 1) * 60;
    const dayReset = (Math.floor(nowMs / DAY_MS) + 1) * 86_400;
    const dayLeft = perDay === null ? Infinity : perDay - w.dayCount;
    let minuteLeft = perMinute - w.minuteCount;
    const allowed = minuteLeft > 0 && dayLeft > 0;
    if (!allowed) {
      // When the day is spent it binds even if the minute is spent too: that is the longer wait.
      const reset = dayLeft <= 0 ? dayReset : minuteReset;
      return { allowed, limit: perMinute, remaining: 0, reset, retryAfter: Math.max(1, Math.ceil(reset - nowMs / 1000)) };
    }
    let remainingDay = dayLeft;
    if (count) {
      w.minuteCount++;
      w.dayCount++;
      minuteLeft--;
      remainingDay--;
    }
    const dayBinds = remainingDay <= minuteLeft;
    return { allowed, limit: perMinute, remaining: Math.min(minuteLeft, remainingDay), reset: dayBinds ? dayReset : minuteReset };
  };

  const countUser = (userId: string, day: string) => {
    let u = users.get(userId);
    if (!u || u.day !== day) {
      u = { day, count: loadRequestCount(db, userId, day) };
      users.set(userId, u);
    }
    u.count++;
    dirty.add(userId);
  };

  const flush = () => {
    const counts = [];
    for (const subject of dirty) {
      const w = windows.get(subject);
      const u = users.get(subject);
      if (w) counts.push({ subject, day: w.day, count: w.dayCount });
      else if (u) counts.push({ subject, day: u.day, count: u.count });
    }
    if (counts.length === 0) return;
    saveRequestCounts(db, counts);
    dirty.clear();
  };

  const prune = () => {
    const nowMs = clock.now().getTime();
    const minute = Math.floor(nowMs / 60_000);
    const today = new Date(nowMs).toISOString().slice(0, 10);
    for (const [subject, w] of windows) {
      if (w.minute < minute && w.day !== today && !dirty.has(subject)) windows.delete(subject);
      // Anonymous windows have no day to keep: forget them once their minute is over.
      else if (subject.startsWith('ip:') && w.minute < minute) windows.delete(subject);
    }
    for (const [userId, u] of users) if (u.day !== today && !dirty.has(userId)) users.delete(userId);
    deleteRequestCountsBefore(db, new Date(nowMs - 2 * DAY_MS).toISOString().slice(0, 10));
  };

  const timer = setInterval(() => {
    try {
      flush();
      prune();
    } catch {
      // The db may be closing; the final flush on close reports nothing either, counts are best effort.
    }
  }, opts.flushMs ?? 5_000);
  timer.unref();

  return {
    hitKey({ keyId, userId, tier }) {
      const nowMs = clock.now().getTime();
      const limits = TIER_LIMITS[tier];
      const w = windowOf(keyId, nowMs, true);
      const d = decide(w, limits.perMinute, limits.perDay, nowMs, true);
      if (d.allowed) {
        dirty.add(keyId);
        countUser(userId, w.day);
      }
      return d;
    },
    hitAnonymous(ip) {
      const nowMs = clock.now().getTime();
      return decide(windowOf(`ip:${ip}`, nowMs, false), ANONYMOUS_PER_MINUTE, null, nowMs, true);
    },
    peekAnonymous(ip) {
      const nowMs = clock.now().getTime();
      return decide(windowOf(`ip:${ip}`, nowMs, false), ANONYMOUS_PER_MINUTE, null, nowMs, false);
    },
    requestsToday(userId) {
      const today = clock.now().toISOString().slice(0, 10);
      const u = users.get(userId);
      if (u && u.day === today) return u.count;
      return loadRequestCount(db, userId, today);
    },
    flush,
    close() {
      clearInterval(timer);
      try {
        flush();
      } catch {
        // A db that is already closed (health tests) cannot take the last counts.
      }
    },
  };
}
