import type Database from 'better-sqlite3';
import type { Migration } from './types.js';
import { m001Core } from './001-core.js';
import { m002Speakers } from './002-speakers.js';
import { m003Audio } from './003-audio-jobs.js';
import { m004SessionsReservations } from './004-sessions-reservations.js';
import { m005Evaluations } from './005-evaluations.js';
import { m006Leases } from './006-leases.js';
import { newerSchemaError } from './schema-version.js';
import { corporaMigration } from './next/b-corpora.js';
import { corpusEvaluationsMigration } from './next/c2-corpus-evaluations.js';

/** Every migration in order; the position + 1 is its version (tracked by PRAGMA user_version). */
export const migrations: Migration[] = [
  m001Core,
  m002Speakers,
  m003Audio,
  m004SessionsReservations,
  m005Evaluations,
  m006Leases,
  { version: 7, name: corporaMigration.name, up: (db) => db.exec(corporaMigration.sqlite) }, // TEMP-REGISTRATION (lead converts at merge)
  { version: 8, name: corpusEvaluationsMigration.name, up: (db) => db.exec(corpusEvaluationsMigration.sqlite) }, // TEMP-REGISTRATION (lead converts at merge)
];

/**
 * Applies the migrations newer than the database's `user_version`, each in its own transaction, and
 * refuses a database a newer voxctl has migrated (its schema may hold rows this version would corrupt).
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
