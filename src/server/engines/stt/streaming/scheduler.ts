/**
 * One pacer for every audio stream of the process (DESIGN §13.2). Frame k of a stream is due at
 * start + k·frameMs/pace on the monotonic clock, so lateness never accumulates the way `setInterval`
 * drift does; a late wake-up sends every frame that has fallen due (catch-up). A single timer serves
 * all streams: 50 streams cost one wake-up per 20 ms rather than 50 competing intervals, which is what
 * keeps send jitter low on a loaded 2-core machine.
 */
import { performance } from 'node:perf_hooks';

/** The clock and timer the scheduler runs on (a fake one in unit tests). */
export interface SchedulerClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** `performance.now()` and Node's timers. */
export const monotonicClock: SchedulerClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Frames due within this much of now go out in the current wake-up (timers have 1 ms granularity). */
const EARLY_MS = 1;

/** A stream to pace. */
export interface PacedSource {
  frames: number;
  /** Audio per frame (ms). */
  frameMs: number;
  /** 1.0 = real time. */
  pace: number;
  /** Sends frame `k` (called in order, exactly once each); throwing stops the stream. */
  send(k: number): void;
}

/** What the scheduler records about one paced stream. */
export interface PacedStream {
  /** Monotonic time each frame was handed to the stream. */
  readonly sentAt: number[];
  /** Send time minus due time of each frame (ms; may be a hair below zero). */
  readonly lateness: number[];
  /** Resolves when the last frame is sent; rejects with what `send` threw. */
  readonly done: Promise<void>;
  /** Stops sending (the promise stays pending unless already settled). */
  cancel(): void;
}

interface Entry {
  src: PacedSource;
  start: number;
  interval: number;
  next: number;
  stream: PacedStream;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** The shared pacer; create one per process (the composition root) and `add` every stream to it. */
export class FrameScheduler {
  private readonly entries = new Set<Entry>();
  private timer: unknown = undefined;
  private wakeAt = Infinity;

  constructor(private readonly clock: SchedulerClock = monotonicClock) {}

  /** Starts pacing `src` now: frame 0 goes out at once. */
  add(src: PacedSource): PacedStream {
    if (!(src.pace > 0)) throw new RangeError(`pace must be > 0, got ${src.pace}`);
    const sentAt: number[] = [];
    const lateness: number[] = [];
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    done.catch(() => undefined); // the caller awaits it; an early cancel must not surface as unhandled
    const entry: Entry = {
      src,
      start: this.clock.now(),
      interval: src.frameMs / src.pace,
      next: 0,
      resolve,
      reject,
      stream: { sentAt, lateness, done, cancel: () => this.remove(entry) },
    };
    if (src.frames === 0) {
      resolve();
      return entry.stream;
    }
    this.entries.add(entry);
    this.tick();
    return entry.stream;
  }

  /** Streams being paced now. */
  get active(): number {
    return this.entries.size;
  }

  private remove(entry: Entry): void {
    this.entries.delete(entry);
    if (this.entries.size === 0) this.disarm();
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.wakeAt = Infinity;
  }

  private tick(): void {
    let due = Infinity;
    for (const e of this.entries) {
      // Re-read the clock per frame: sending takes time, and the record must say when each frame left.
      while (e.next < e.src.frames) {
        const at = e.start + e.next * e.interval;
        const now = this.clock.now();
        if (at > now + EARLY_MS) break;
        try {
          e.src.send(e.next);
        } catch (err) {
          this.entries.delete(e);
          e.reject(err);
          break;
        }
        // Stamped once the frame is handed to the socket: a slow send (a cold code path, a busy machine)
        // then counts as lateness instead of silently shortening every latency measured from it.
        const sent = this.clock.now();
        e.stream.sentAt.push(sent);
        e.stream.lateness.push(sent - at);
        e.next++;
      }
      if (!this.entries.has(e)) continue;
      if (e.next >= e.src.frames) {
        this.entries.delete(e);
        e.resolve();
      } else {
        due = Math.min(due, e.start + e.next * e.interval);
      }
    }
    if (due !== Infinity) this.arm(due);
  }

  private arm(due: number): void {
    if (due >= this.wakeAt) return;
    this.disarm();
    this.wakeAt = due;
    // Wake at the last whole millisecond before the frame is due; EARLY_MS covers the remainder.
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.wakeAt = Infinity;
      this.tick();
    }, Math.max(0, Math.floor(due - this.clock.now())));
  }
}

/** Achieved pace of a paced stream: audio sent per wall-clock time between the first and last frame. */
export function achievedPace(sentAt: readonly number[], frameMs: number): number | null {
  if (sentAt.length < 2) return null;
  const wall = (sentAt[sentAt.length - 1] as number) - (sentAt[0] as number);
  return wall > 0 ? ((sentAt.length - 1) * frameMs) / wall : null;
}

/** The q-quantile (0..1) of `values` by nearest rank; 0 for none. */
export function quantile(values: readonly number[], q: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
