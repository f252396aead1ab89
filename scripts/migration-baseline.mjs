#!/usr/bin/env node
// Writes the baselines a new database is made from (src/server/storage/migrations/baseline/{sqlite,postgres}.sql):
// a database is migrated through every migration of the built tree, then its schema is written out —
// SQLite's from sqlite_master, PostgreSQL's by pg_dump — with the rows the migrations left in it, but for
// the speaker catalogue, which the baseline loads from its seed file. Run `npm run build && node
// scripts/migration-baseline.mjs` after adding a migration (or not: a baseline that stands for fewer
// migrations is still right, the later ones are applied on top). PostgreSQL: an empty database named by
// VOXCTL_BASELINE_DATABASE_URL, else a throw-away server from /usr/lib/postgresql (as the tests start).
// test/unit/server/storage/baseline.test.ts and test/scale/baseline.test.ts compare each baseline with the history.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadSqliteDriver } from '../dist/server/storage/sqlite-driver.js';
import { createSqliteDb } from '../dist/server/storage/sql/sqlite.js';
import { createPostgresDb } from '../dist/server/storage/sql/postgres.js';
import { migrateSchema } from '../dist/server/storage/migrations/runner.js';
import { databaseUrl, postgresBinDir, startPostgresCluster } from './postgres-cluster.mjs';

const OUT = fileURLToPath(new URL('../src/server/storage/migrations/baseline/', import.meta.url));
/** Loaded by baseline.ts from its seed file, not written as rows. */
const SEEDED = 'speakers';
/** When a migration was applied is when the baseline is, not when this script ran. */
const APPLIED_AT = { sqlite: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')", postgres: 'now()' };

const header = (dialect, version, how) =>
  `-- The schema of a new ${dialect} database: migrations 1-${version} as one script (DESIGN §14.1 baseline, issue 32 item 3).
-- Written by scripts/migration-baseline.mjs from a database migrated through them (${how}); do not edit,
-- run it again. Rows: what the migrations left (${SEEDED} excepted: baseline.ts loads the seed file).
-- version: ${version}
`;

/** A value as an SQL literal. */
function literal(v, dialect) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (Buffer.isBuffer(v)) return dialect === 'sqlite' ? `X'${v.toString('hex')}'` : `'\\x${v.toString('hex')}'::bytea`;
  if (v instanceof Date) return `'${v.toISOString()}'`;
  return `'${String(v).replaceAll("'", "''")}'`;
}

/** INSERTs for every row of the tables but the seeded one, in primary-key order. */
async function rows(db, tables, dialect) {
  const out = [];
  for (const table of tables) {
    if (table === SEEDED) continue;
    const all = await db.all(`SELECT * FROM ${table} ORDER BY 1`);
    for (const row of all) {
      const cols = Object.keys(row);
      const values = cols.map((c) => (table === 'voxctl_schema_migrations' && c === 'applied_at' ? APPLIED_AT[dialect] : literal(row[c], dialect)));
      out.push(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${values.join(', ')});`);
    }
  }
  return out;
}

async function sqliteBaseline() {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-baseline-'));
  const raw = new (loadSqliteDriver())(join(dir, 'voxctl.db'));
  const db = createSqliteDb(raw);
  try {
    const status = await migrateSchema(db, undefined, { baseline: null });
    const version = status.applied.length;
    const objects = await db.all("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid");
    const tables = objects.filter((o) => o.type === 'table').map((o) => o.name);
    const schema = objects.map((o) => `${o.sql};`);
    const data = await rows(db, tables, 'sqlite');
    const userVersion = await db.value('PRAGMA user_version');
    writeFileSync(join(OUT, 'sqlite.sql'), `${header('SQLite', version, 'sqlite_master')}\n${schema.join('\n')}\n\n${data.join('\n')}\nPRAGMA user_version = ${userVersion};\n`);
    console.log(`baseline/sqlite.sql: migrations 1-${version}, ${schema.length} objects, ${data.length} rows`);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** pg_dump's schema without what ties it to one server: settings, comments, owners, the `public` schema (the service uses the connection's current schema). */
function cleanDump(text) {
  return text
    .split('\n')
    .filter((l) => !/^(SET |SELECT pg_catalog\.set_config|--|\\restrict|\\unrestrict|CREATE SCHEMA public;)/.test(l))
    .join('\n')
    .replace(/\bpublic\./g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

async function postgresBaseline() {
  let cluster;
  let url = process.env.VOXCTL_BASELINE_DATABASE_URL;
  if (!url) {
    cluster = await startPostgresCluster();
    const admin = new pg.Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    await admin.query('CREATE DATABASE voxctl_baseline TEMPLATE template0');
    await admin.end();
    url = databaseUrl(cluster.adminUrl, 'voxctl_baseline');
  }
  const db = createPostgresDb({ connectionString: url, max: 1 });
  try {
    const status = await migrateSchema(db, undefined, { baseline: null });
    const version = status.applied.length;
    const bin = postgresBinDir();
    const pgDump = bin ? join(bin, 'pg_dump') : 'pg_dump';
    const dump = execFileSync(pgDump, ['--schema-only', '--no-owner', '--no-privileges', '--no-comments', '--no-tablespaces', '--schema=public', url], { encoding: 'utf8' });
    const tables = await db.column("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name");
    const data = await rows(db, tables, 'postgres');
    writeFileSync(join(OUT, 'postgres.sql'), `${header('PostgreSQL', version, 'pg_dump --schema-only')}\n${cleanDump(dump)}\n\n${data.join('\n')}\n`);
    console.log(`baseline/postgres.sql: migrations 1-${version}, ${data.length} rows`);
  } finally {
    await db.close();
    await cluster?.stop();
  }
}

await sqliteBaseline();
await postgresBaseline();
