/** The limits feature as the other features see it (quotas, rate limits, reservations and per-user slots): they import it through this file only. */
export { billingPeriod, getUsage, refundCharacters, reserveCharacters, type RefundFn } from './quota.js';
export { utcDay } from './rate-decision.js';
export { pruneRateWindows } from './rate-windows-repository.js';
export { refundStaleReservations, releaseReservation, reserveDurably, settleReservation } from './reservations.js';
export { getCharactersUsed, listUsagePeriods } from './usage-repository.js';
export { UserSlots } from './user-slots.js';
