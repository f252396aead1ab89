import type { Db } from '../../storage/db.js';
import type { Tier } from '../../../shared/schemas/users.js';

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
export async function insertPortalToken(db: Db, row: Pick<PortalSessionRow, 'token_hash' | 'user_id' | 'created_at' | 'expires_at'>): Promise<void> {
  await db.run('INSERT INTO billing_portal_sessions (token_hash, user_id, created_at, expires_at) VALUES (@token_hash, @user_id, @created_at, @expires_at)', { ...row });
}

/** The portal link whose token hashes to `tokenHash`, if any. */
export function findPortalToken(db: Db, tokenHash: string): Promise<PortalSessionRow | undefined> {
  return db.get<PortalSessionRow>('SELECT * FROM billing_portal_sessions WHERE token_hash = ?', [tokenHash]);
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
export async function insertPortalBrowserSession(db: Db, row: PortalBrowserSessionRow): Promise<void> {
  await db.run(
    `INSERT INTO billing_portal_browser_sessions (session_hash, token_hash, user_id, created_at, expires_at)
     VALUES (@session_hash, @token_hash, @user_id, @created_at, @expires_at)`,
    { ...row },
  );
}

/** The portal session whose cookie hashes to `sessionHash`, if any. */
export function findPortalSession(db: Db, sessionHash: string): Promise<PortalBrowserSessionRow | undefined> {
  return db.get<PortalBrowserSessionRow>('SELECT * FROM billing_portal_browser_sessions WHERE session_hash = ?', [sessionHash]);
}

/** Forgets links that expired before `now` (ISO), and with them (ON DELETE CASCADE) their sessions. */
export function deleteExpiredPortalSessions(db: Db, now: string): Promise<number> {
  return db.run('DELETE FROM billing_portal_sessions WHERE expires_at < ?', [now]);
}

/** The user's payment method, if one was recorded. */
export function getPaymentMethod(db: Db, userId: string): Promise<PaymentMethodRow | undefined> {
  return db.get<PaymentMethodRow>('SELECT * FROM payment_methods WHERE user_id = ?', [userId]);
}

/** Records (or replaces) the user's payment method. */
export async function upsertPaymentMethod(db: Db, row: PaymentMethodRow): Promise<void> {
  await db.run(
    `INSERT INTO payment_methods (user_id, brand, last4, exp_month, exp_year, updated_at)
     VALUES (@user_id, @brand, @last4, @exp_month, @exp_year, @updated_at)
     ON CONFLICT (user_id) DO UPDATE SET brand = excluded.brand, last4 = excluded.last4,
       exp_month = excluded.exp_month, exp_year = excluded.exp_year, updated_at = excluded.updated_at`,
    { ...row },
  );
}

/** Records a tier change. */
export async function insertSubscriptionChange(db: Db, row: SubscriptionChangeRow): Promise<void> {
  await db.run(
    'INSERT INTO subscription_changes (user_id, previous_tier, tier, changed_at) VALUES (@user_id, @previous_tier, @tier, @changed_at)',
    { ...row },
  );
}

/** The user's tier changes, oldest first. */
export function listSubscriptionChanges(db: Db, userId: string): Promise<SubscriptionChangeRow[]> {
  return db.all<SubscriptionChangeRow>(
    'SELECT user_id, previous_tier, tier, changed_at FROM subscription_changes WHERE user_id = ? ORDER BY changed_at, id',
    [userId],
  );
}
