import type { Db } from '../../storage/db.js';
import { TIERS } from '../../../shared/schemas/users.js';
import { getUser } from '../accounts/index.js';
import { currentUsage, getSubscription, listInvoices, paymentMethod, TIER_PRICES_CENTS } from './service.js';
import { TIER_LIMITS } from '../accounts/index.js';
import type { PortalView } from './page.js';

/** Fixed notices after a successful form (`?done=`); the page never echoes query text. */
export const NOTICES: Readonly<Record<string, string>> = {
  tier: 'Your plan was changed. New limits apply from now on.',
  cancel: 'Your subscription was cancelled.',
  resume: 'Your subscription is active again.',
  card: 'Your payment method was saved.',
};

/** Gathers what the portal page of `userId` shows. */
export async function buildPortalView(
  db: Db,
  opts: { userId: string; csrf: string; now: Date; notice?: string; error?: string },
): Promise<PortalView> {
  const user = await getUser(db, opts.userId);
  const card = await paymentMethod(db, opts.userId);
  return {
    email: user.email,
    ...(user.name ? { name: user.name } : {}),
    subscription: await getSubscription(db, opts.userId, opts.now),
    usage: await currentUsage(db, opts.userId, opts.now),
    plans: TIERS.map((tier) => ({
      tier,
      priceCents: TIER_PRICES_CENTS[tier],
      characters: TIER_LIMITS[tier].characters,
      perMinute: TIER_LIMITS[tier].perMinute,
      perDay: TIER_LIMITS[tier].perDay,
    })),
    invoices: await listInvoices(db, opts.userId, opts.now),
    ...(card ? { card } : {}),
    csrf: opts.csrf,
    ...(opts.notice ? { notice: opts.notice } : {}),
    ...(opts.error ? { error: opts.error } : {}),
  };
}
