/**
 * The bounds of a stream (DESIGN §17.5): whatever a vendor or a client does, one stream ends by its
 * deadline, one user holds a handful of them, an unread answer and a vendor's message stay small.
 * The deadline's constants are a settings object so that the composition root can lower them for a test;
 * production uses `STREAM_LIMITS` as written.
 */

/** The constants of `max(minSeconds, perAudioSecond × audio seconds ÷ pace) + graceSeconds`. */
export interface StreamDeadline {
  minSeconds: number;
  perAudioSecond: number;
  graceSeconds: number;
}

/** Every bound of streams. */
export interface StreamLimits {
  deadline: StreamDeadline;
  /** Streams (`POST /v1/stt/stream`) one user may have open at once on one instance. */
  perUser: number;
  /** `Retry-After` (seconds) of the 429 past `perUser`. */
  retryAfterSeconds: number;
  /** NDJSON a client may leave unread before its stream is closed. */
  maxUnreadBytes: number;
}

/** DESIGN §17.5 as written. */
export const STREAM_LIMITS: Readonly<StreamLimits> = Object.freeze({
  deadline: Object.freeze({ minSeconds: 30, perAudioSecond: 2, graceSeconds: 10 }),
  perUser: 4,
  retryAfterSeconds: 5,
  maxUnreadBytes: 1024 * 1024,
});

/** The largest vendor message (a WebSocket message, or a streaming handshake's HTTP body) a stream takes. */
export const MAX_VENDOR_MESSAGE_BYTES = 4 * 1024 * 1024;

/** How long (ms) a stream of `audioSeconds` sent at `pace` may take in all: `max(30, 2 × audio s ÷ pace) + 10` s. */
export function streamDeadlineMs(audioSeconds: number, pace: number, d: StreamDeadline = STREAM_LIMITS.deadline): number {
  return Math.round((Math.max(d.minSeconds, (d.perAudioSecond * audioSeconds) / pace) + d.graceSeconds) * 1000);
}
