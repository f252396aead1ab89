/**
 * At most 4 open streams per user (DESIGN §17.5): each holds a vendor socket per provider, or a PocketSphinx
 * process, for up to its deadline, so one key cannot take every vendor connection and core of the service.
 * Counted per process: each instance of a scale-out bounds its own share (counting across instances would
 * cost a database write at each stream's start and end, and a crashed instance's count would need leases).
 */
import { ApiError } from '../../errors.js';

/** The detail of the 429 past the limit. */
export const TOO_MANY_STREAMS = 'Too many open streams';

/** The open streams of each user. */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  /**
   * Takes one of `userId`'s `perUser` slots and returns its release (idempotent), or throws 429 `Too many
   * open streams` with `Retry-After` (seconds), like the API's other 429s.
   */
  take(userId: string, perUser: number, retryAfterSeconds: number): () => void {
    const n = this.open.get(userId) ?? 0;
    if (n >= perUser) throw new ApiError('rate_limited', TOO_MANY_STREAMS, { headers: { 'Retry-After': String(retryAfterSeconds) } });
    this.open.set(userId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(userId) ?? 1) - 1;
      if (left > 0) this.open.set(userId, left);
      else this.open.delete(userId);
    };
  }
}
