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

/** A subject's counts after (or, when refused, without) the request: minute index and `YYYY-MM-DD` day. */
export interface WindowCounts {
  minute: number;
  minuteCount: number;
  day: string;
  dayCount: number;
}

const DAY_MS = 86_400_000;

/** The UTC day (`YYYY-MM-DD`) of an instant: the day window a request counts in. */
export const utcDay = (nowMs: number): string => new Date(nowMs).toISOString().slice(0, 10);

/**
 * The decision and headers for counts that already include this request when `allowed` (or stand
 * without it when refused). Windows of another minute or day than `nowMs`'s count as empty.
 */
export function decisionFor(w: WindowCounts, o: { perMinute: number; perDay: number | null; nowMs: number; allowed: boolean }): RateDecision {
  const minute = Math.floor(o.nowMs / 60_000);
  const minuteCount = w.minute === minute ? w.minuteCount : 0;
  // A minute lies within one UTC day: a window of this minute is of today, with no date string to build.
  const dayCount = w.minute === minute || w.day === utcDay(o.nowMs) ? w.dayCount : 0;
  const minuteReset = (minute + 1) * 60;
  const dayReset = (Math.floor(o.nowMs / DAY_MS) + 1) * 86_400;
  const minuteLeft = o.perMinute - minuteCount;
  const dayLeft = o.perDay === null ? Infinity : o.perDay - dayCount;
  if (!o.allowed) {
    // When the day is spent it binds even if the minute is spent too: that is the longer wait.
    const reset = dayLeft <= 0 ? dayReset : minuteReset;
    return { allowed: false, limit: o.perMinute, remaining: 0, reset, retryAfter: Math.max(1, Math.ceil(reset - o.nowMs / 1000)) };
  }
  const dayBinds = dayLeft <= minuteLeft;
  return { allowed: true, limit: o.perMinute, remaining: Math.max(0, Math.min(minuteLeft, dayLeft)), reset: dayBinds ? dayReset : minuteReset };
}
