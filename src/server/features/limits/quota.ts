import type { Db } from '../../storage/db.js';
import { addCharactersUsed, getCharactersUsed, subtractCharactersUsed } from './usage-repository.js';
import type { Usage } from '../../../shared/schemas/users.js';
import { DomainError } from '../../../shared/errors.js';
import { TIER_LIMITS } from '../accounts/index.js';
import { getUser } from '../accounts/index.js';

/** The detail of a 429 for an exhausted quota (spec's exact message). */
export const QUOTA_EXCEEDED = 'Character quota exceeded for this billing period';

const ymd = (d: Date) => d.toISOString().slice(0, 10);

/** The billing period holding `now`: the calendar month in UTC, as `YYYY-MM-DD` first and last days. */
export function billingPeriod(now: Date): { start: string; end: string } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return { start: ymd(new Date(Date.UTC(y, m, 1))), end: ymd(new Date(Date.UTC(y, m + 1, 0))) };
}

/**
 * Consumes `characters` of the user's quota for the current period, or throws 429 consuming nothing.
 * Check and write share one transaction (joining the caller's when it already holds one), so
 * concurrent reservations — other connections or processes included — can never overshoot the limit.
 */
export async function reserveCharacters(db: Db, opts: { userId: string; characters: number; now: Date }): Promise<{ period: string; characters: number }> {
  if (!Number.isSafeInteger(opts.characters) || opts.characters < 0) {
    throw new TypeError(`characters must be a non-negative integer, got ${opts.characters}`);
  }
  const period = billingPeriod(opts.now).start;
  return db.transaction(async () => {
    const user = await getUser(db, opts.userId);
    const used = await getCharactersUsed(db, opts.userId, period);
    if (used + opts.characters > TIER_LIMITS[user.subscription_tier].characters) throw new DomainError('quota_exceeded', QUOTA_EXCEEDED);
    if (opts.characters > 0) await addCharactersUsed(db, opts.userId, period, opts.characters);
    return { period, characters: opts.characters };
  });
}

/** Gives back characters reserved for work that failed or was cancelled (refundCharacters in production). */
export type RefundFn = (db: Db, r: { userId: string; period: string; characters: number }) => Promise<void>;

/** Gives back characters of a reservation whose work failed (to the period they were taken from). */
export async function refundCharacters(db: Db, opts: { userId: string; period: string; characters: number }): Promise<void> {
  if (opts.characters > 0) await subtractCharactersUsed(db, opts.userId, opts.period, opts.characters);
}

/** `/v1/users/usage`: the current period's characters against the tier's limit, and today's requests. */
export async function getUsage(db: Db, opts: { userId: string; now: Date; requestsToday: number }): Promise<Usage> {
  const user = await getUser(db, opts.userId);
  const period = billingPeriod(opts.now);
  return {
    characters_used: await getCharactersUsed(db, opts.userId, period.start),
    characters_limit: TIER_LIMITS[user.subscription_tier].characters,
    requests_today: opts.requestsToday,
    period_start: period.start,
    period_end: period.end,
    subscription_tier: user.subscription_tier,
  };
}
