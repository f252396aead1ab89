/**
 * The billing feature as its routes use it: every rule bound once, by the composition root, to the
 * service's database, clock and secret, so a route parses its request and calls one of these.
 */
import type { Db } from '../../storage/db.js';
import type { Clock } from '../../clock.js';
import type { BillingPortal, Subscription } from '../../../shared/schemas/system.js';
import type { Tier } from '../accounts/index.js';
import type { PortalView } from './page.js';
import { changeTier, getInvoice, getSubscription, invoiceCsv, savePaymentMethod, setCancelled } from './service.js';
import { createPortalLink, csrfToken, csrfValid, openPortalLink, portalSession, type OpenedLink } from './portal-sessions.js';
import { buildPortalView } from './portal-view.js';

/** A card as the portal's form sends it (checked by `savePaymentMethod`). */
export interface CardForm {
  number: string;
  expMonth: string;
  expYear: string;
}

/** What the billing routes call. */
export interface BillingFeature {
  /** A new portal link of `userId`, under `base` (the public URL or the request's origin). */
  portalLink(userId: string, base: string): Promise<BillingPortal>;
  subscription(userId: string): Promise<Subscription>;
  /** Opens a portal link: a browser session, or why not. */
  openLink(token: string): Promise<OpenedLink>;
  /** The user and expiry of a session cookie's value, while it is valid. */
  session(sessionId: string | undefined): Promise<{ userId: string; expiresAt: Date } | undefined>;
  /** Whether `given` is the CSRF token of the session's forms (constant time). */
  csrfValid(sessionId: string, given: unknown): boolean;
  /** What the portal page shows the session's user, with a notice or an error. */
  portalView(session: { userId: string; sessionId: string }, extra?: { notice?: string; error?: string }): Promise<PortalView>;
  changeTier(userId: string, tier: Tier): Promise<void>;
  setCancelled(userId: string, cancelled: boolean): Promise<void>;
  savePaymentMethod(userId: string, card: CardForm): Promise<void>;
  /** Invoice `invoiceId` of `userId` as CSV; `invoice_not_found` when there is none. */
  invoiceCsv(userId: string, invoiceId: string): Promise<string>;
  /** Now, by the service's clock (cookie lifetimes). */
  now(): Date;
}

/** Binds the billing rules to the service's collaborators (called once, by the composition root). */
export function createBillingFeature(deps: { db: Db; clock: Clock; secret: Buffer }): BillingFeature {
  const { db, clock, secret } = deps;
  return {
    portalLink: (userId, base) => createPortalLink(db, { userId, base, now: clock.now() }),
    subscription: (userId) => getSubscription(db, userId, clock.now()),
    openLink: (token) => openPortalLink(db, { token, now: clock.now() }),
    session: (sessionId) => portalSession(db, { sessionId, now: clock.now() }),
    csrfValid: (sessionId, given) => csrfValid(secret, sessionId, given),
    portalView: (s, extra = {}) => buildPortalView(db, { userId: s.userId, csrf: csrfToken(secret, s.sessionId), now: clock.now(), ...extra }),
    changeTier: (userId, tier) => changeTier(db, { userId, tier, now: clock.now() }),
    setCancelled: (userId, cancelled) => setCancelled(db, { userId, cancelled }),
    savePaymentMethod: async (userId, card) => void (await savePaymentMethod(db, { userId, ...card, now: clock.now() })),
    invoiceCsv: async (userId, invoiceId) => invoiceCsv(await getInvoice(db, userId, invoiceId, clock.now())),
    now: () => clock.now(),
  };
}
