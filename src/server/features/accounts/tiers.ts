import { TIERS, type Tier } from '../../../shared/schemas/users.js';
import { TIER_LIMITS as SHARED_TIER_LIMITS } from '../../../shared/tier-limits.js';

export type { Tier };

/** What a tier allows: characters per billing period, requests per minute and per day (null = unlimited). */
export interface TierLimits {
  characters: number;
  perMinute: number;
  perDay: number | null;
}

/** Quotas (DESIGN §4.13) and rate limits (the spec's table; free per DESIGN), shared with the CLI. */
export const TIER_LIMITS: Readonly<Record<Tier, TierLimits>> = SHARED_TIER_LIMITS;

/** True when `value` names a tier. */
export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}
