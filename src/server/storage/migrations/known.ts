import { createHash } from 'node:crypto';
import type { Db, Dialect } from '../sql/types.js';
import { migrations as legacySqlite } from './index.js';
import { postgresMigrations as legacyPostgres } from './postgres/index.js';
import { NEXT_MIGRATIONS } from './next/index.js';
import { canonicalText, recordPostgresMigration, recordSqliteMigration, replay, type SqlCall } from './legacy-sql.js';
import { HISTORICAL_CHECKSUMS } from './checksums.js';

/** SHA-256 (hex) of a migration's SQL text. */
export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A migration as the runner sees it, whatever format it was written in. */
export interface KnownMigration {
  version: number;
  name: string;
  /** SHA-256 of the SQL it runs (see legacy-sql.ts for the migrations written as code). */
  checksum: string;
  /** Checksums of texts this version had before checksums were recorded (still accepted, DESIGN §14.1). */
  accepted: readonly string[];
  /** Whether the release before it runs on its schema (DESIGN §14.13); recorded from migration-compatibility on. */
  compatible: boolean;
  /** `legacy`: written as code (SQLite 1-6, PostgreSQL 1-2); `sql`: a NEXT_MIGRATIONS entry. */
  format: 'legacy' | 'sql';
  /** Applies it inside the runner's transaction. */
  apply(db: Db): Promise<void>;
}

/**
 * Every migration of a dialect in order: the legacy ones (SQLite 1-6, PostgreSQL 1-2, written as code)
 * then NEXT_MIGRATIONS, whose position p makes them version legacy count + p — so `Migration 7
 * (schema-repair)` on SQLite is `Migration 3 (schema-repair)` on PostgreSQL.
 */
export function knownMigrations(dialect: Dialect): Promise<KnownMigration[]> {
  // The list is fixed for a build; /health and /health/ready read it on every call (DESIGN §14.13).
  let known = KNOWN.get(dialect);
  if (known === undefined) {
    known = listMigrations(dialect);
    KNOWN.set(dialect, known);
  }
  return known;
}

const KNOWN = new Map<Dialect, Promise<KnownMigration[]>>();

async function listMigrations(dialect: Dialect): Promise<KnownMigration[]> {
  const legacy: { version: number; name: string; calls: SqlCall[] }[] =
    dialect === 'sqlite'
      ? legacySqlite.map((m) => ({ version: m.version, name: m.name, calls: recordSqliteMigration(m) }))
      : await Promise.all(legacyPostgres.map(async (m) => ({ version: m.version, name: m.name, calls: await recordPostgresMigration(m) })));
  const known: KnownMigration[] = legacy.map((m) => ({
    version: m.version,
    name: m.name,
    checksum: sha256(canonicalText(m.calls)),
    accepted: HISTORICAL_CHECKSUMS[dialect][m.version] ?? [],
    // Recorded by migration-compatibility itself for the migrations before it.
    compatible: true,
    format: 'legacy',
    apply: (db) => replay(db, m.calls),
  }));
  NEXT_MIGRATIONS.forEach((m, i) => {
    const sql = m[dialect];
    known.push({ version: legacy.length + i + 1, name: m.name, checksum: sha256(sql), accepted: [], compatible: m.compatible === true, format: 'sql', apply: (db) => db.exec(sql) });
  });
  return known;
}
