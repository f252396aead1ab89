import type { Db } from '../../storage/db.js';
import { deleteRequestCountsBefore, loadRequestCount, saveRequestCounts } from '../../storage/repositories/request-counters.js';
import { openRequestJournal } from '../../storage/request-journal.js';
import type { Clock } from '../../clock.js';
import { TIER_LIMITS, type Tier } from '../accounts/index.js';
import { ANONYMOUS_PER_MINUTE } from '../../../shared/tier-limits.js';
import { decisionFor, utcDay, type RateDecision } from './rate-decision.js';

export type { RateDecision };

/** Per-account minute and day windows (shared by all keys of a user), per-IP minute window for anonymous callers. */
export interface RateLimiter {
  /**
   * Counts one request of user `userId` (tier read for this request), whichever of their keys it carried;
   * a promise when the count must wait for the database (the user's first request of a day, a shared count).
   */
  hitUser(opts: { userId: string; tier: Tier }): RateDecision | Promise<RateDecision>;
  /** Counts one request without a valid key, per client IP (a promise when the count is shared). */
  hitAnonymous(ip: string): RateDecision | Promise<RateDecision>;
  /** The headers for an IP without counting (responses that never reached the counting hook). */
  peekAnonymous(ip: string): RateDecision;
  /** Authenticated requests of the user since 00:00 UTC. */
  requestsToday(userId: string): Promise<number>;
  /**
   * Calls `release` once every request counted so far is durable against a crash — at once when that is
   * already so. A counted request's answer must not leave before (DESIGN §4.14): the HTTP layer holds it.
   */
  whenCountsWritten(release: () => void): void;
  /** Folds the day counts into the database (and empties the journal). */
  flush(): Promise<void>;
  /** Stops the flush timer and flushes one last time. */
  close(): Promise<void>;
}

/** The limiter of one instance: anonymous counts are in memory, so they answer at once. */
export interface LocalRateLimiter extends RateLimiter {
  hitAnonymous(ip: string): RateDecision;
}

interface Window {
  minute: number;
  minuteCount: number;
  day: string;
  dayCount: number;
}

const DAY_MS = 86_400_000;

/**
 * Counters live in memory (one map lookup per request; Node runs hooks one at a time, so counts are
 * exact under any concurrency). A user's day count is loaded from the db when first seen on a day; each
 * counted request's new count goes to `journal`, written once per event-loop turn for all the requests of
 * the turn (one write instead of one per request: a tenth of a request's time under load), and their
 * answers wait for that write (`whenCountsWritten`), so a SIGKILL never hands answered requests back.
 * Every `flushMs` the counts are folded into the db and the journal emptied. Without a journal (unit
 * tests) counts are as durable as the last flush. Resolves once the counts a previous process journaled
 * are saved.
 */
export async function createRateLimiter(opts: {
  db: Db;
  clock: Clock;
  /** The request journal file (`{dataDir}/requests.journal`); none: counts persist at flush only. */
  journalPath?: string;
  flushMs?: number;
}): Promise<LocalRateLimiter> {
  const { db, clock } = opts;
  const opened = opts.journalPath === undefined ? undefined : openRequestJournal(opts.journalPath);
  const journal = opened?.journal;
  // Counts the previous process journaled but never folded: saved first, so no user is loaded without them.
  try {
    if (opened && opened.pending.length > 0) await saveRequestCounts(db, opened.pending);
  } catch (err) {
    journal?.close();
    throw err;
  }
  journal?.truncate();
  const windows = new Map<string, Window>();
  const dirty = new Set<string>();
  /** Bumped by every journal append: a fold truncates the journal only if nothing was appended meanwhile. */
  let appended = 0;
  /** Answers waiting for the journal's next write, and whether that write is scheduled. */
  let waiting: (() => void)[] = [];
  let writeScheduled = false;

  // After the poll phase of the turn that counted the requests: one write for them all, then their answers.
  const writeJournal = (): void => {
    writeScheduled = false;
    try {
      journal?.write();
    } catch {
      // A full or failing disk must not take the service down: the counts stay in memory and the next
      // fold saves them; only a crash before that fold could lose them.
    }
    const released = waiting;
    waiting = [];
    for (const release of released) release();
  };

  /** The minute window of an anonymous subject (never persisted). */
  const anonymousWindow = (subject: string, nowMs: number): Window => {
    const minute = Math.floor(nowMs / 60_000);
    let w = windows.get(subject);
    if (!w) {
      w = { minute, minuteCount: 0, day: utcDay(nowMs), dayCount: 0 };
      windows.set(subject, w);
    }
    if (w.minute !== minute) {
      w.minute = minute;
      w.minuteCount = 0;
      w.day = utcDay(nowMs);
      w.dayCount = 0;
    }
    return w;
  };

  // A user's window needs the day's persisted count when first seen on a day: concurrent requests of the
  // user share that one load, and counting resumes only once the window is in place.
  const loadingWindows = new Map<string, Promise<Window>>();

  const loadUserWindow = async (subject: string, nowMs: number): Promise<Window> => {
    const minute = Math.floor(nowMs / 60_000);
    const day = utcDay(nowMs);
    const old = windows.get(subject);
    // Yesterday's last counts go to the db now: the next fold empties the journal and saves only today.
    if (old && old.day !== day && dirty.has(subject)) await saveRequestCounts(db, [{ subject, day: old.day, count: old.dayCount }]);
    const w: Window = { minute, minuteCount: 0, day, dayCount: await loadRequestCount(db, subject, day) };
    windows.set(subject, w);
    return w;
  };

  /** The user's window when it can be brought to `nowMs` without the database, else undefined. */
  const userWindowNow = (subject: string, nowMs: number): Window | undefined => {
    const minute = Math.floor(nowMs / 60_000);
    const w = windows.get(subject);
    if (w && w.minute === minute) return w;
    // The day can only change when the minute does: the date string is built once a minute at most.
    if (w && w.day === utcDay(nowMs)) {
      w.minute = minute;
      w.minuteCount = 0;
      return w;
    }
    return undefined;
  };

  const userWindow = (subject: string, nowMs: number): Promise<Window> => {
    let loading = loadingWindows.get(subject);
    if (!loading) {
      loading = loadUserWindow(subject, nowMs).finally(() => loadingWindows.delete(subject));
      loadingWindows.set(subject, loading);
    }
    return loading;
  };

  const decide = (w: Window, perMinute: number, perDay: number | null, nowMs: number, count: boolean): RateDecision => {
    const allowed = w.minuteCount < perMinute && (perDay === null || w.dayCount < perDay);
    if (allowed && count) {
      w.minuteCount++;
      w.dayCount++;
    }
    return decisionFor(w, { perMinute, perDay, nowMs, allowed });
  };

  const countUser = (userId: string, w: Window, tier: Tier, nowMs: number): RateDecision => {
    const limits = TIER_LIMITS[tier];
    // One synchronous step from the decision to the count: exact under any concurrency.
    const d = decide(w, limits.perMinute, limits.perDay, nowMs, true);
    if (d.allowed) {
      dirty.add(userId);
      if (journal) {
        appended++;
        journal.append(userId, w.day, w.dayCount);
        if (!writeScheduled) {
          writeScheduled = true;
          setImmediate(writeJournal);
        }
      }
    }
    return d;
  };

  const hitUser = ({ userId, tier }: { userId: string; tier: Tier }): RateDecision | Promise<RateDecision> => {
    const nowMs = clock.now().getTime();
    const w = userWindowNow(userId, nowMs);
    if (w) return countUser(userId, w, tier, nowMs);
    // The user's first request of the day loads the day's count; requests meanwhile share that load.
    return userWindow(userId, nowMs).then((loaded) => countUser(userId, loaded, tier, nowMs));
  };

  const fold = async (): Promise<void> => {
    const counts = [];
    for (const subject of dirty) {
      const w = windows.get(subject);
      if (w) counts.push({ subject, day: w.day, count: w.dayCount });
    }
    const appendedBefore = appended;
    // Requests counted while the save awaits mark their subject dirty again for the next fold.
    dirty.clear();
    try {
      if (counts.length > 0) await saveRequestCounts(db, counts);
    } catch (err) {
      for (const c of counts) dirty.add(c.subject);
      throw err;
    }
    // Only once the counts are committed, and only when no line was appended meanwhile (its count is not
    // saved yet): a crash in between replays lines whose maxima are saved already.
    if (appended === appendedBefore) journal?.truncate();
  };

  // One fold at a time: the timer's and close()'s must not interleave.
  let folding: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const next = folding.catch(() => undefined).then(fold);
    folding = next;
    return next;
  };

  const prune = async (): Promise<void> => {
    const nowMs = clock.now().getTime();
    const minute = Math.floor(nowMs / 60_000);
    const today = utcDay(nowMs);
    for (const [subject, w] of windows) {
      if (w.minute < minute && w.day !== today && !dirty.has(subject)) windows.delete(subject);
      // Anonymous windows have no day to keep: forget them once their minute is over.
      else if (subject.startsWith('ip:') && w.minute < minute) windows.delete(subject);
    }
    await deleteRequestCountsBefore(db, utcDay(nowMs - 2 * DAY_MS));
  };

  const timer = setInterval(() => {
    flush()
      .then(prune)
      .catch(() => {
        // The db may be closing; the journal still holds the counts for the next start.
      });
  }, opts.flushMs ?? 5_000);
  timer.unref();

  return {
    hitUser,
    hitAnonymous(ip) {
      const nowMs = clock.now().getTime();
      return decide(anonymousWindow(`ip:${ip}`, nowMs), ANONYMOUS_PER_MINUTE, null, nowMs, true);
    },
    peekAnonymous(ip) {
      const nowMs = clock.now().getTime();
      return decide(anonymousWindow(`ip:${ip}`, nowMs), ANONYMOUS_PER_MINUTE, null, nowMs, false);
    },
    async requestsToday(userId) {
      const nowMs = clock.now().getTime();
      const w = windows.get(userId);
      const today = utcDay(nowMs);
      if (w && w.day === today) return w.dayCount;
      return loadRequestCount(db, userId, today);
    },
    whenCountsWritten(release) {
      if (writeScheduled) waiting.push(release);
      else release();
    },
    flush,
    async close() {
      clearInterval(timer);
      try {
        await flush();
      } catch {
        // A db that is already closed (health tests) cannot take the last counts; the journal keeps them.
      }
      writeJournal();
      journal?.close();
    },
  };
}
