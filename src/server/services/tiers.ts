import { TIERS, type Tier } from '../../shared/schemas/users.js';

export type { Tier };

/** What a tier allows: characters per billing period, requests per minute and per day (null = unlimited). */
export interface TierLimits {
  characters: number;
  perMinute: number;
  perDay: number | null;
}

/** Quotas (DESIGN §4.13) and rate limits (the spec's table; free per DESIGN). */
export const TIER_LIMITS: Readonly<Record<Tier, TierLimits>> = {
  free: { characters: 10_000, perMinute: 20, perDay: 200 },
  starter: { characters: 100_000, perMinute: 60, perDay: 1_000 },
  pro: { characters: 1_000_000, perMinute: 300, perDay: 10_000 },
  enterprise: { characters: 10_000_000, perMinute: 1_000, perDay: null },
};

/** Requests per minute allowed to one client IP without a key (DESIGN §4.14). */
export const ANONYMOUS_PER_MINUTE = 60;

/** True when `value` names a tier. */
export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}
