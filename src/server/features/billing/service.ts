import { stringify } from 'csv-stringify/sync';
import { csvRecord } from '../../../shared/csv-cells.js';
import type { Db } from '../../storage/db.js';
import type { Subscription } from '../../../shared/schemas/system.js';
import type { Tier } from '../../../shared/schemas/users.js';
import { updateUserSubscription, updateUserTier } from '../accounts/index.js';
import { listUsagePeriods, getCharactersUsed } from '../limits/index.js';
import {
  getPaymentMethod,
  insertSubscriptionChange,
  listSubscriptionChanges,
  upsertPaymentMethod,
  type SubscriptionChangeRow,
} from './repository.js';
import { summarizeCard, type CardSummary } from './card.js';
import { DomainError } from '../../../shared/errors.js';
import { billingPeriod } from '../limits/index.js';
import { TIER_LIMITS } from '../accounts/index.js';
import { getUser } from '../accounts/index.js';

/** Monthly price of each tier, in US cents (the invoices' price table). */
export const TIER_PRICES_CENTS: Readonly<Record<Tier, number>> = {
  free: 0,
  starter: 1_900,
  pro: 9_900,
  enterprise: 49_900,
};
export const CURRENCY = 'USD';

/** GET /v1/billing/subscription: tier, status and the current calendar-month period. */
export async function getSubscription(db: Db, userId: string, now: Date): Promise<Subscription> {
  const row = await getUser(db, userId);
  const period = billingPeriod(now);
  return {
    tier: row.subscription_tier,
    status: row.subscription_status,
    current_period_start: period.start,
    current_period_end: period.end,
    cancel_at_period_end: row.cancel_at_period_end === 1,
  };
}

/**
 * Changes the tier at once: the auth layer reads the tier on every request, so quotas and rate limits
 * follow from the next request on. The change is recorded so earlier invoices keep their own tier.
 */
export async function changeTier(db: Db, opts: { userId: string; tier: Tier; now: Date }): Promise<void> {
  await db.transaction(async () => {
    const row = await getUser(db, opts.userId);
    if (row.subscription_tier === opts.tier) return;
    await updateUserTier(db, opts.userId, opts.tier);
    await insertSubscriptionChange(db, { user_id: opts.userId, previous_tier: row.subscription_tier, tier: opts.tier, changed_at: opts.now.toISOString() });
  });
}

/**
 * Cancels the subscription: status `cancelled` at once (synthesis, batch and dataset generation answer
 * 403 `Subscription is cancelled`) and no renewal at the period end. Resuming undoes both.
 */
export async function setCancelled(db: Db, opts: { userId: string; cancelled: boolean }): Promise<void> {
  await getUser(db, opts.userId);
  await updateUserSubscription(db, opts.userId, opts.cancelled ? { status: 'cancelled', cancelAtPeriodEnd: true } : { status: 'active', cancelAtPeriodEnd: false });
}

/** One invoice: a past billing period with recorded usage, priced at the tier of that period. */
export interface Invoice {
  id: string;
  period_start: string;
  period_end: string;
  tier: Tier;
  characters_used: number;
  characters_included: number;
  amount_cents: number;
  currency: string;
}

/** The tier in force at `instant` (ISO): the last change before it, else the tier before the first change. */
function tierAt(changes: SubscriptionChangeRow[], instant: string, current: Tier): Tier {
  let tier: Tier | undefined;
  for (const c of changes) if (c.changed_at < instant) tier = c.tier;
  return tier ?? changes[0]?.previous_tier ?? current;
}

/** Invoices of every past period with recorded usage, newest first. */
export async function listInvoices(db: Db, userId: string, now: Date): Promise<Invoice[]> {
  const row = await getUser(db, userId);
  const current = billingPeriod(now).start;
  const changes = await listSubscriptionChanges(db, userId);
  return (await listUsagePeriods(db, userId))
    .filter((p) => p.period_start < current)
    .map((p) => {
      const start = new Date(`${p.period_start}T00:00:00.000Z`);
      const period = billingPeriod(start);
      const nextStart = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)).toISOString();
      const tier = tierAt(changes, nextStart, row.subscription_tier);
      return {
        id: `inv_${p.period_start.slice(0, 7).replace('-', '')}`,
        period_start: period.start,
        period_end: period.end,
        tier,
        characters_used: p.characters_used,
        characters_included: TIER_LIMITS[tier].characters,
        amount_cents: TIER_PRICES_CENTS[tier],
        currency: CURRENCY,
      };
    })
    .reverse();
}

/** One of the user's invoices by id, or 404 `Invoice not found`. */
export async function getInvoice(db: Db, userId: string, invoiceId: string, now: Date): Promise<Invoice> {
  const invoice = (await listInvoices(db, userId, now)).find((i) => i.id === invoiceId);
  if (!invoice) throw new DomainError('invoice_not_found', 'Invoice not found');
  return invoice;
}

const money = (cents: number) => (cents / 100).toFixed(2);
const tierName = (tier: Tier) => tier[0]!.toUpperCase() + tier.slice(1);

/** The CSV of an invoice: one line per charge and a total (RFC 4180, header first). */
export function invoiceCsv(invoice: Invoice): string {
  const rows = [
    ['invoice_id', 'period_start', 'period_end', 'description', 'quantity', 'unit_price', 'amount', 'currency'],
    [invoice.id, invoice.period_start, invoice.period_end, `voxctl ${tierName(invoice.tier)} plan (monthly)`, 1, money(invoice.amount_cents), money(invoice.amount_cents), invoice.currency],
    [
      invoice.id,
      invoice.period_start,
      invoice.period_end,
      `Characters synthesised (${invoice.characters_included} included)`,
      invoice.characters_used,
      '0.00',
      '0.00',
      invoice.currency,
    ],
    [invoice.id, invoice.period_start, invoice.period_end, 'Total', '', '', money(invoice.amount_cents), invoice.currency],
  ];
  return stringify(rows.map(csvRecord), { record_delimiter: '\r\n' });
}

/** The user's card summary (brand, last 4, expiry), if one was recorded. */
export async function paymentMethod(db: Db, userId: string): Promise<CardSummary | undefined> {
  const row = await getPaymentMethod(db, userId);
  return row && { brand: row.brand, last4: row.last4, expMonth: row.exp_month, expYear: row.exp_year };
}

/** Validates a card (Luhn, expiry) and keeps only its summary; throws CardError for the page. */
export async function savePaymentMethod(
  db: Db,
  opts: { userId: string; number: string; expMonth: string; expYear: string; now: Date },
): Promise<CardSummary> {
  await getUser(db, opts.userId);
  const card = summarizeCard(opts, opts.now);
  await upsertPaymentMethod(db, {
    user_id: opts.userId,
    brand: card.brand,
    last4: card.last4,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    updated_at: opts.now.toISOString(),
  });
  return card;
}

/** Characters used in the current period (the portal's usage line). */
export async function currentUsage(db: Db, userId: string, now: Date): Promise<{ used: number; limit: number }> {
  const row = await getUser(db, userId);
  return { used: await getCharactersUsed(db, userId, billingPeriod(now).start), limit: TIER_LIMITS[row.subscription_tier].characters };
}
