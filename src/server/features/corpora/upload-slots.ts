/**
 * At most two uploads of one user receive, extract and decode at once (DESIGN §17.3): each holds a core, a
 * temporary folder and up to a few hundred MB while it runs, so one key cannot queue the service's work
 * behind its own. Counted per process (UserSlots).
 */
import { ApiError } from '../../errors.js';
import { CORPUS_MESSAGES } from '../../../shared/corpus/index.js';
import { UserSlots } from '../limits/index.js';

/** DESIGN §17.3: uploads one user may have in progress at once, and the `Retry-After` of the 429 past it. */
export const UPLOAD_SLOTS = Object.freeze({ perUser: 2, retryAfterSeconds: 5 });

/** The running uploads of each user. */
export class UploadSlots {
  private readonly slots = new UserSlots();

  constructor(private readonly perUser = UPLOAD_SLOTS.perUser) {}

  /**
   * Takes one of `userId`'s slots and returns its release (idempotent), or throws 429 `Too many uploads in
   * progress` with `Retry-After: 5`, answered before the body is read (plugins/lingering-close.ts bounds what
   * is read of it after).
   */
  take(userId: string): () => void {
    const release = this.slots.tryTake(userId, this.perUser);
    if (release) return release;
    throw new ApiError('rate_limited', CORPUS_MESSAGES.tooManyUploads, {
      headers: { 'Retry-After': String(UPLOAD_SLOTS.retryAfterSeconds) },
    });
  }
}
