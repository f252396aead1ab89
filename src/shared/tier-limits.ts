/**
 * What each tier allows (DESIGN §4.13 and the spec's rate-limit table; free per DESIGN): characters per
 * billing period, requests per minute and per day (null = unlimited). Plain data without TypeBox, so
 * the CLI (`voxctl usage`) reads the same table as the server without loading the schemas.
 */
export const TIER_LIMITS = {
  free: { characters: 10_000, perMinute: 20, perDay: 200 },
  starter: { characters: 100_000, perMinute: 60, perDay: 1_000 },
  pro: { characters: 1_000_000, perMinute: 300, perDay: 10_000 },
  enterprise: { characters: 10_000_000, perMinute: 1_000, perDay: null },
} as const satisfies Record<string, { characters: number; perMinute: number; perDay: number | null }>;

/** The tiers, cheapest first: the keys of the table (the schemas' `Tier` derives from them). */
export const TIER_NAMES = Object.keys(TIER_LIMITS) as (keyof typeof TIER_LIMITS)[];

/** Requests per minute allowed to one client IP without a key (DESIGN §4.14). */
export const ANONYMOUS_PER_MINUTE = 60;
