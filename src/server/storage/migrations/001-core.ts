import type { Migration } from './types.js';

/**
 * Users, API keys, per-period character usage and persisted request counters (DESIGN §4.13-4.15).
 * Keys are stored only as SHA-256 hex; `prefix` (first 8 chars) is kept for display.
 */
export const m001Core: Migration = {
  version: 1,
  name: 'core',
  up(db) {
    db.exec(`
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        name TEXT,
        subscription_tier TEXT NOT NULL CHECK (subscription_tier IN ('free', 'starter', 'pro', 'enterprise')),
        subscription_status TEXT NOT NULL DEFAULT 'active' CHECK (subscription_status IN ('active', 'cancelled')),
        cancel_at_period_end INTEGER NOT NULL DEFAULT 0 CHECK (cancel_at_period_end IN (0, 1)),
        created_at TEXT NOT NULL
      ) STRICT;
      -- Emails are unique regardless of case (Admin@x and admin@x are one person).
      CREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE);

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        scope TEXT NOT NULL CHECK (scope IN ('full', 'read')),
        prefix TEXT NOT NULL,
        key_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      ) STRICT;
      CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash);
      CREATE INDEX api_keys_user ON api_keys (user_id, created_at);

      CREATE TABLE usage_periods (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        period_start TEXT NOT NULL,
        characters_used INTEGER NOT NULL DEFAULT 0 CHECK (characters_used >= 0),
        PRIMARY KEY (user_id, period_start)
      ) STRICT, WITHOUT ROWID;

      -- Day counts of the rate limiter (subject = key id or user id), flushed from memory.
      CREATE TABLE request_counters (
        subject TEXT NOT NULL,
        day TEXT NOT NULL,
        count INTEGER NOT NULL CHECK (count >= 0),
        PRIMARY KEY (subject, day)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX request_counters_day ON request_counters (day);
    `);
  },
};
