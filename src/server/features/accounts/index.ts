/** The accounts feature as the other features see it (users, API keys and tiers: who is calling and what they may do): they import it through this file only. */
export { requireAuth } from './auth-plugin.js';
export { TIER_LIMITS, isTier, type Tier } from './tiers.js';
export { updateUserSubscription, updateUserTier } from './users-repository.js';
export { assertActiveSubscription, getUser } from './users.js';
