/**
 * Brings a database made by any earlier landed commit to one current schema (issue 24.1). PostgreSQL's
 * migration 2 was edited in place after it was published (229f8ec → 21aa4a4 added the audio blob tables,
 * 43e9102 the row-cache epoch and its triggers, d4f6bbb `rate_windows.last_granted`), so a database that
 * recorded version 2 early lacks some of them; every statement here is idempotent and creates only what
 * is missing. SQLite's published migrations never changed; it gains the audio blob tables, so
 * `--audio-store database` works on SQLite too and the two dialects hold the same tables of the store.
 */
export const schemaRepairMigration = {
  name: 'schema-repair',
  sqlite: `
CREATE TABLE IF NOT EXISTS audio_blobs (
  name TEXT PRIMARY KEY,
  blob_id TEXT NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS audio_blobs_created_at ON audio_blobs (created_at);
CREATE TABLE IF NOT EXISTS audio_blob_retired (
  blob_id TEXT PRIMARY KEY,
  retired_at TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS audio_blob_chunks (
  blob_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (blob_id, seq)
) STRICT;
`,
  postgres: `
-- Missing where migration 2 ran as first published (229f8ec).
CREATE TABLE IF NOT EXISTS audio_blobs (
  name TEXT PRIMARY KEY,
  blob_id TEXT NOT NULL UNIQUE,
  size BIGINT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audio_blobs_created_at ON audio_blobs (created_at);
CREATE TABLE IF NOT EXISTS audio_blob_retired (
  blob_id TEXT PRIMARY KEY,
  retired_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audio_blob_chunks (
  blob_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BYTEA NOT NULL,
  PRIMARY KEY (blob_id, seq)
);

-- Missing where migration 2 ran before 43e9102.
CREATE TABLE IF NOT EXISTS cache_epoch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  epoch BIGINT NOT NULL
);
INSERT INTO cache_epoch (id, epoch) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
CREATE OR REPLACE FUNCTION voxctl_bump_cache_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE cache_epoch SET epoch = epoch + 1 WHERE id = 1;
  RETURN NULL;
END $$;
-- CREATE OR REPLACE TRIGGER needs PostgreSQL 14; DESIGN §9 supports 13.
DROP TRIGGER IF EXISTS users_cache_epoch ON users;
CREATE TRIGGER users_cache_epoch AFTER UPDATE OR DELETE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION voxctl_bump_cache_epoch();
DROP TRIGGER IF EXISTS api_keys_cache_epoch ON api_keys;
CREATE TRIGGER api_keys_cache_epoch AFTER UPDATE OF user_id, scope, key_hash, revoked_at OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION voxctl_bump_cache_epoch();

-- Missing where migration 2 ran before d4f6bbb.
ALTER TABLE rate_windows ADD COLUMN IF NOT EXISTS last_granted INTEGER NOT NULL DEFAULT 0;
`,
} as const;
