import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { Db, Dialect } from '../sql/types.js';
import { migrations as legacySqlite } from './index.js';
import { postgresMigrations as legacyPostgres } from './postgres/index.js';
import { NEXT_MIGRATIONS } from './next/index.js';
import { canonicalText, recordPostgresMigration, recordSqliteMigration, replay, type SqlCall } from './legacy-sql.js';
import { HISTORICAL_CHECKSUMS } from './checksums.js';
import { isSqlFileName, parseSqlFile, SqlFileError, type SqlFileMigration } from './sql-file.js';

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
  /**
   * `legacy`: written as code (SQLite 1-6, PostgreSQL 1-2); `sql`: a NEXT_MIGRATIONS entry (a text per
   * dialect, closed); `file`: one file of the format every later migration is written in (sql-file.ts).
   */
  format: 'legacy' | 'sql' | 'file';
  /** Applies it inside the runner's transaction. */
  apply(db: Db): Promise<void>;
}

/**
 * Every migration of a dialect in order: the legacy ones (SQLite 1-6, PostgreSQL 1-2, written as code),
 * then NEXT_MIGRATIONS, then the files of ./sql/ in the order of their numbers — each one version after the
 * one before, so `Migration 7 (schema-repair)` on SQLite is `Migration 3 (schema-repair)` on PostgreSQL.
 * Published ones of every format stay as they are; a new migration is a new file in ./sql/.
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

/** Where the migrations of the one format are (copied beside the build by scripts/copy-assets.mjs). */
export const SQL_MIGRATIONS_DIR = new URL('./sql/', import.meta.url);

/** The migrations of a dialect with the files of `sqlDir` as its new-format ones (tests give a folder of their own). */
export async function listMigrations(dialect: Dialect, sqlDir: URL = SQL_MIGRATIONS_DIR): Promise<KnownMigration[]> {
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
  for (const m of readSqlFiles(sqlDir)) {
    const sql = m.sql[dialect];
    known.push({ version: known.length + 1, name: m.name, checksum: sha256(sql), accepted: [], compatible: m.compatible, format: 'file', apply: (db) => db.exec(sql) });
  }
  return known;
}

/** The migration files of `dir` in order; their numbers must run 1, 2, 3… without a gap or a repeat. */
export function readSqlFiles(dir: URL): SqlFileMigration[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter(isSqlFileName).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return files.map((file, i) => {
    const m = parseSqlFile(file, readFileSync(new URL(file, dir), 'utf8'));
    if (m.sequence !== i + 1) throw new SqlFileError(file, undefined, `expected number ${String(i + 1).padStart(3, '0')} here: migration files are numbered 001, 002, … without gaps or repeats`);
    return m;
  });
}
