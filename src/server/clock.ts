/** Time source, injected so tests can move time (quota periods, URL expiry, rate windows). */
export interface Clock {
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };
