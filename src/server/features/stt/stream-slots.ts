/**
 * At most 4 open streams per user (DESIGN §17.5): each holds a vendor socket per provider, or a PocketSphinx
 * process, for up to its deadline, so one key cannot take every vendor connection and core of the service.
 * Counted per process (UserSlots).
 */
import { ApiError } from '../../errors.js';
import { UserSlots } from '../limits/index.js';

/** The detail of the 429 past the limit. */
export const TOO_MANY_STREAMS = 'Too many open streams';

/** The open streams of each user. */
export class StreamSlots {
  private readonly slots = new UserSlots();

  /**
   * Takes one of `userId`'s `perUser` slots and returns its release (idempotent), or throws 429 `Too many
   * open streams` with `Retry-After` (seconds), like the API's other 429s.
   */
  take(userId: string, perUser: number, retryAfterSeconds: number): () => void {
    const release = this.slots.tryTake(userId, perUser);
    if (release) return release;
    throw new ApiError('rate_limited', TOO_MANY_STREAMS, { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}
