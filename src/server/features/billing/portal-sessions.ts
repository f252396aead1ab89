import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import type { BillingPortal } from '../../../shared/schemas/system.js';
import {
  deleteExpiredPortalSessions,
  findPortalSession,
  findPortalToken,
  insertPortalBrowserSession,
  insertPortalToken,
} from './repository.js';

/**
 * Portal links and sessions (DESIGN §4.16).
 *
 * `GET /v1/billing/portal` issues a link `{base}/billing/portal/{token}`: 32 random bytes, stored only
 * as SHA-256, valid 24 h. Every GET of the link within that time — again, or in another browser — starts
 * a session: a random id in an HttpOnly, SameSite=Lax cookie scoped to `/billing`, then a redirect to the
 * clean `/billing/portal` (the token leaves the address bar and history). A session ends when its link
 * expires. Forms carry a CSRF token = HMAC(server secret, session id), so a page of
 * another site can neither read nor forge it; SameSite=Lax already keeps the cookie off cross-site POSTs.
 */
export const PORTAL_TTL_MS = 24 * 60 * 60 * 1000;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const randomToken = () => randomBytes(32).toString('base64url');

/** Issues a portal link for the user, valid 24 h (and forgets expired ones with their sessions). */
export async function createPortalLink(db: Db, opts: { userId: string; base: string; now: Date }): Promise<BillingPortal> {
  const token = randomToken();
  const expires = new Date(opts.now.getTime() + PORTAL_TTL_MS).toISOString();
  await db.transaction(async () => {
    await deleteExpiredPortalSessions(db, opts.now.toISOString());
    await insertPortalToken(db, { token_hash: sha256(token), user_id: opts.userId, created_at: opts.now.toISOString(), expires_at: expires });
  });
  return { url: `${opts.base.replace(/\/+$/, '')}/billing/portal/${token}`, expires_at: expires };
}

/** What opening a link leads to. */
export type OpenedLink = { kind: 'session'; sessionId: string; expiresAt: Date } | { kind: 'invalid' | 'expired' };

/** Starts a new browser session on a link that exists and has not expired (DESIGN §4.16). */
export async function openPortalLink(db: Db, opts: { token: string; now: Date }): Promise<OpenedLink> {
  if (!TOKEN_PATTERN.test(opts.token)) return { kind: 'invalid' };
  const tokenHash = sha256(opts.token);
  const row = await findPortalToken(db, tokenHash);
  if (!row) return { kind: 'invalid' };
  if (Date.parse(row.expires_at) <= opts.now.getTime()) return { kind: 'expired' };
  const sessionId = randomToken();
  await insertPortalBrowserSession(db, {
    session_hash: sha256(sessionId),
    token_hash: tokenHash,
    user_id: row.user_id,
    created_at: opts.now.toISOString(),
    expires_at: row.expires_at,
  });
  return { kind: 'session', sessionId, expiresAt: new Date(row.expires_at) };
}

/** The user behind a portal session cookie, while it is valid. */
export async function portalSession(
  db: Db,
  opts: { sessionId: string | undefined; now: Date },
): Promise<{ userId: string; expiresAt: Date } | undefined> {
  if (!opts.sessionId || !TOKEN_PATTERN.test(opts.sessionId)) return undefined;
  const row = await findPortalSession(db, sha256(opts.sessionId));
  if (!row || Date.parse(row.expires_at) <= opts.now.getTime()) return undefined;
  return { userId: row.user_id, expiresAt: new Date(row.expires_at) };
}

/** The CSRF token of a session's forms. */
export function csrfToken(secret: Buffer, sessionId: string): string {
  return createHmac('sha256', secret).update(`billing-csrf:${sessionId}`).digest('base64url');
}

/** Constant-time check of a submitted CSRF token. */
export function csrfValid(secret: Buffer, sessionId: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(csrfToken(secret, sessionId));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
