import type { PostgresMigration } from './types.js';

/**
 * What several instances share beyond SQLite's schema (DESIGN §9.2-9.4): work leases (as SQLite's 6),
 * the instances' heartbeats, the server secret created once by the first instance, the shared rate-limit
 * windows (one row per user or client address), and audio bytes as chunks.
 */
export const p002ScaleOut: PostgresMigration = {
  version: 2,
  name: 'scale-out',
  async up(client) {
    await client.query(`
      ALTER TABLE job_items ADD COLUMN lease_owner TEXT;
      ALTER TABLE job_items ADD COLUMN lease_expires_at TEXT;
      ALTER TABLE evaluation_syntheses ADD COLUMN lease_owner TEXT;
      ALTER TABLE evaluation_syntheses ADD COLUMN lease_expires_at TEXT;
      ALTER TABLE character_reservations ADD COLUMN owner TEXT;
      CREATE TABLE instances (
        id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        heartbeat_at TEXT NOT NULL
      );

      CREATE TABLE server_settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );

      CREATE TABLE rate_windows (
        subject TEXT PRIMARY KEY,
        minute BIGINT NOT NULL,
        minute_count INTEGER NOT NULL,
        day TEXT NOT NULL,
        day_count INTEGER NOT NULL,
        -- How many requests the last count granted (the batch's first ones): RETURNING shows only new values.
        last_granted INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX rate_windows_day ON rate_windows (day);

      -- A blob's chunks hang off a version id, not its name: a reader never mixes two versions' chunks.
      CREATE TABLE audio_blobs (
        name TEXT PRIMARY KEY,
        blob_id TEXT NOT NULL UNIQUE,
        size BIGINT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX audio_blobs_created_at ON audio_blobs (created_at);
      -- Replaced or deleted versions, kept a while for streams already reading them.
      CREATE TABLE audio_blob_retired (
        blob_id TEXT PRIMARY KEY,
        retired_at TEXT NOT NULL
      );
      -- The version of what instances cache of users and keys (repositories/row-cache.ts): bumped in the
      -- same transaction as any change to a user or to the cached columns of a key, by whoever makes it.
      CREATE TABLE cache_epoch (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        epoch BIGINT NOT NULL
      );
      INSERT INTO cache_epoch (id, epoch) VALUES (1, 0);
      CREATE FUNCTION voxctl_bump_cache_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE cache_epoch SET epoch = epoch + 1 WHERE id = 1;
        RETURN NULL;
      END $$;
      CREATE TRIGGER users_cache_epoch AFTER UPDATE OR DELETE ON users
        FOR EACH STATEMENT EXECUTE FUNCTION voxctl_bump_cache_epoch();
      -- last_used_at is left out: it is written once a minute per key and never decides a request.
      CREATE TRIGGER api_keys_cache_epoch AFTER UPDATE OF user_id, scope, key_hash, revoked_at OR DELETE ON api_keys
        FOR EACH STATEMENT EXECUTE FUNCTION voxctl_bump_cache_epoch();

      CREATE TABLE audio_blob_chunks (
        blob_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (blob_id, seq)
      );
    `);
  },
};
