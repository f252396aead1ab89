import type { Migration } from './types.js';

/**
 * Billing portal links become reusable for their 24 h (DESIGN §4.16): each opening starts its own browser
 * session, so sessions move to a table of their own (the link row's `used_at`/`session_hash` are no longer
 * written; sessions already open are carried over). Character reservations of synthesis requests in flight
 * are recorded, so a restart refunds those a crash left without a stored result (DESIGN §4.6).
 */
export const m004SessionsReservations: Migration = {
  version: 4,
  name: 'sessions-reservations',
  up(db) {
    db.exec(`
      CREATE TABLE billing_portal_browser_sessions (
        session_hash TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL REFERENCES billing_portal_sessions (token_hash) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX billing_portal_browser_sessions_token ON billing_portal_browser_sessions (token_hash);
      INSERT INTO billing_portal_browser_sessions (session_hash, token_hash, user_id, created_at, expires_at)
        SELECT session_hash, token_hash, user_id, used_at, expires_at FROM billing_portal_sessions
        WHERE session_hash IS NOT NULL AND used_at IS NOT NULL;

      -- One row per synthesis between reserving its characters and storing its audio; none outlive a request.
      CREATE TABLE character_reservations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        period_start TEXT NOT NULL,
        characters INTEGER NOT NULL CHECK (characters >= 0),
        created_at TEXT NOT NULL
      ) STRICT;
    `);
  },
};
