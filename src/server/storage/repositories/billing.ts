import type { Db } from '../db.js';
import type { Tier } from '../../../shared/schemas/users.js';
import { prepared } from './prepared.js';

/** A row of `billing_portal_sessions`: a portal link (its sessions are `billing_portal_browser_sessions`). */
export interface PortalSessionRow {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  /** Written by schema versions before 4 only (a link then opened once). */
  used_at: string | null;
  session_hash: string | null;
}

/** A row of `payment_methods` (never the card number). */
export interface PaymentMethodRow {
  user_id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  updated_at: string;
}

/** A row of `subscription_changes`. */
export interface SubscriptionChangeRow {
  user_id: string;
  previous_tier: Tier;
  tier: Tier;
  changed_at: string;
}

/** Stores a new portal link (hash of its token only). */
export function insertPortalToken(db: Db, row: Pick<PortalSessionRow, 'token_hash' | 'user_id' | 'created_at' | 'expires_at'>): void {
  prepared(db, 'INSERT INTO billing_portal_sessions (token_hash, user_id, created_at, expires_at) VALUES (@token_hash, @user_id, @created_at, @expires_at)').run(row);
}

/** The portal link whose token hashes to `tokenHash`, if any. */
export function findPortalToken(db: Db, tokenHash: string): PortalSessionRow | undefined {
  return prepared(db, 'SELECT * FROM billing_portal_sessions WHERE token_hash = ?').get(tokenHash) as PortalSessionRow | undefined;
}

/** A row of `billing_portal_browser_sessions`: one opening of a portal link in one browser. */
export interface PortalBrowserSessionRow {
  session_hash: string;
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

/** Records a browser session started by opening a link. */
export function insertPortalBrowserSession(db: Db, row: PortalBrowserSessionRow): void {
  prepared(
    db,
    `INSERT INTO billing_portal_browser_sessions (session_hash, token_hash, user_id, created_at, expires_at)
     VALUES (@session_hash, @token_hash, @user_id, @created_at, @expires_at)`,
  ).run(row);
}

/** The portal session whose cookie hashes to `sessionHash`, if any. */
export function findPortalSession(db: Db, sessionHash: string): PortalBrowserSessionRow | undefined {
  return prepared(db, 'SELECT * FROM billing_portal_browser_sessions WHERE session_hash = ?').get(sessionHash) as PortalBrowserSessionRow | undefined;
}

/** Forgets links that expired before `now` (ISO), and with them (ON DELETE CASCADE) their sessions. */
export function deleteExpiredPortalSessions(db: Db, now: string): number {
  return prepared(db, 'DELETE FROM billing_portal_sessions WHERE expires_at < ?').run(now).changes;
}

/** The user's payment method, if one was recorded. */
export function getPaymentMethod(db: Db, userId: string): PaymentMethodRow | undefined {
  return prepared(db, 'SELECT * FROM payment_methods WHERE user_id = ?').get(userId) as PaymentMethodRow | undefined;
}

/** Records (or replaces) the user's payment method. */
export function upsertPaymentMethod(db: Db, row: PaymentMethodRow): void {
  prepared(
    db,
    `INSERT INTO payment_methods (user_id, brand, last4, exp_month, exp_year, updated_at)
     VALUES (@user_id, @brand, @last4, @exp_month, @exp_year, @updated_at)
     ON CONFLICT (user_id) DO UPDATE SET brand = excluded.brand, last4 = excluded.last4,
       exp_month = excluded.exp_month, exp_year = excluded.exp_year, updated_at = excluded.updated_at`,
  ).run(row);
}

/** Records a tier change. */
export function insertSubscriptionChange(db: Db, row: SubscriptionChangeRow): void {
  prepared(
    db,
    'INSERT INTO subscription_changes (user_id, previous_tier, tier, changed_at) VALUES (@user_id, @previous_tier, @tier, @changed_at)',
  ).run(row);
}

/** The user's tier changes, oldest first. */
export function listSubscriptionChanges(db: Db, userId: string): SubscriptionChangeRow[] {
  return prepared(
    db,
    'SELECT user_id, previous_tier, tier, changed_at FROM subscription_changes WHERE user_id = ? ORDER BY changed_at, id',
  ).all(userId) as SubscriptionChangeRow[];
}
