import type Database from 'better-sqlite3';
import type { Migration } from './types.js';
import { m001Core } from './001-core.js';
import { m002Speakers } from './002-speakers.js';
import { m003Audio } from './003-audio-jobs.js';
import { m004SessionsReservations } from './004-sessions-reservations.js';
import { m005Evaluations } from './005-evaluations.js';
import { m006Leases } from './006-leases.js';
import { newerSchemaError } from './schema-version.js';

/**
 * The legacy SQLite migrations, written as code; the position + 1 is the version (PRAGMA user_version).
 * Closed: later migrations are SQL text in ./next/, and the service applies both through ./runner.ts.
 */
export const migrations: Migration[] = [m001Core, m002Speakers, m003Audio, m004SessionsReservations, m005Evaluations, m006Leases];

/**
 * Applies the legacy migrations newer than `user_version` to a raw handle, synchronously, each in its own
 * transaction — for tests of one legacy migration on a raw better-sqlite3 handle. The service migrates
 * through runner.ts (checksums, the next/ migrations); refuses a database a newer voxctl has migrated.
 */
export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const known = migrations.length;
  if (current > known) throw newerSchemaError(current, known);
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
}
