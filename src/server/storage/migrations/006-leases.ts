import type { Migration } from './types.js';

/**
 * Leases on the two work queues (DESIGN §9.3): an item being worked carries its worker's instance id and
 * when the lease runs out; an expired lease may be claimed again. SQLite runs one instance per data dir,
 * but the columns keep the claim SQL one text for both dialects. `owner` of a reservation is the instance
 * that holds it; `instances` records each running instance (heartbeat) so PostgreSQL instances can tell
 * a dead peer's reservations from a live one's.
 */
export const m006Leases: Migration = {
  version: 6,
  name: 'leases',
  up(db) {
    db.exec(`
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
      ) STRICT;
    `);
  },
};
