import type { Migration } from './types.js';
import { filterKey } from '../filter-key.js';
import { speakerSeed } from './speaker-seed.js';

/**
 * The speaker catalogue (fixed rows written once from the deterministic generator, DESIGN §4.5: a later
 * change to the generator must not give new databases a different catalogue) and the billing tables
 * (DESIGN §4.16). Filters compare lower-cased `*_key` columns, each with its own index, so every filter
 * is an index lookup whatever its Unicode case (NOCASE would only fold ASCII). `seq` is the listing order.
 */
export const m002Speakers: Migration = {
  version: 2,
  name: 'speakers-billing',
  up(db) {
    db.exec(`
      CREATE TABLE speakers (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        gender TEXT NOT NULL,
        region TEXT NOT NULL,
        accent TEXT NOT NULL,
        age_range TEXT NOT NULL,
        native_language TEXT NOT NULL,
        engine TEXT NOT NULL CHECK (engine IN ('flite', 'espeak')),
        voice TEXT NOT NULL,
        variant TEXT,
        pitch REAL NOT NULL CHECK (pitch BETWEEN -6 AND 6),
        rate REAL NOT NULL CHECK (rate BETWEEN 0.8 AND 1.25),
        gender_key TEXT NOT NULL,
        region_key TEXT NOT NULL,
        accent_key TEXT NOT NULL,
        age_range_key TEXT NOT NULL,
        native_language_key TEXT NOT NULL
      ) STRICT;
      CREATE INDEX speakers_gender ON speakers (gender_key);
      CREATE INDEX speakers_region ON speakers (region_key);
      CREATE INDEX speakers_accent ON speakers (accent_key);
      CREATE INDEX speakers_age_range ON speakers (age_range_key);
      CREATE INDEX speakers_native_language ON speakers (native_language_key);

      -- Only what a receipt shows: the card number itself is validated and dropped, never stored.
      CREATE TABLE payment_methods (
        user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        brand TEXT NOT NULL,
        last4 TEXT NOT NULL CHECK (length(last4) = 4),
        exp_month INTEGER NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
        exp_year INTEGER NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      -- One row per portal link: the link token and, once exchanged, the browser session (both SHA-256).
      CREATE TABLE billing_portal_sessions (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT,
        session_hash TEXT UNIQUE
      ) STRICT;
      CREATE INDEX billing_portal_sessions_expiry ON billing_portal_sessions (expires_at);

      -- Tier changes, so each past invoice is priced at the tier of its period.
      CREATE TABLE subscription_changes (
        id INTEGER PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        previous_tier TEXT NOT NULL,
        tier TEXT NOT NULL,
        changed_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX subscription_changes_user ON subscription_changes (user_id, changed_at);
    `);
    const insert = db.prepare(`
      INSERT INTO speakers (id, gender, region, accent, age_range, native_language, engine, voice, variant, pitch, rate,
                            gender_key, region_key, accent_key, age_range_key, native_language_key)
      VALUES (@id, @gender, @region, @accent, @age_range, @native_language, @engine, @voice, @variant, @pitch, @rate,
              @gender_key, @region_key, @accent_key, @age_range_key, @native_language_key)`);
    for (const [id, gender, region, accent, age_range, native_language, engine, voice, variant, pitch, rate] of speakerSeed()) {
      insert.run({
        id, gender, region, accent, age_range, native_language, engine, voice, variant, pitch, rate,
        gender_key: filterKey(gender),
        region_key: filterKey(region),
        accent_key: filterKey(accent),
        age_range_key: filterKey(age_range),
        native_language_key: filterKey(native_language),
      });
    }
  },
};

