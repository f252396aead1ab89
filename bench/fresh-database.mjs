#!/usr/bin/env node
// A new database, made by replaying every migration (as before issue 32 item 3) and from the baseline
// (migrations/baseline/, how the service makes one now): milliseconds from an empty database to the current
// schema with the speaker catalogue, BENCH_RUNS (default 3) each, alternating, after one warm-up of each.
// SQLite: a file in a temp dir with the service's pragmas; PostgreSQL: a throw-away server (as the tests
// start) or VOXCTL_BENCH_DATABASE_URL (a superuser URL). Every test server and every first `voxctl` start
// pays this once. Run `npm run build` first. Asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadSqliteDriver } from '../dist/server/storage/sqlite-driver.js';
import { createSqliteDb } from '../dist/server/storage/sql/sqlite.js';
import { createPostgresDb } from '../dist/server/storage/sql/postgres.js';
import { migrateSchema } from '../dist/server/storage/migrations/runner.js';
import { databaseUrl, startPostgresCluster } from '../scripts/postgres-cluster.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WAYS = { history: { baseline: null }, baseline: {} };

async function sqliteOnce(options) {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-bench-fresh-'));
  const raw = new (loadSqliteDriver())(join(dir, 'voxctl.db'));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  const db = createSqliteDb(raw);
  const t0 = performance.now();
  await migrateSchema(db, undefined, options);
  const ms = performance.now() - t0;
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

function postgresOnce(adminUrl) {
  let n = 0;
  return async (options) => {
    const name = `voxctl_bench_fresh_${process.pid}_${n++}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
    const db = createPostgresDb({ connectionString: databaseUrl(adminUrl, name), max: 1 });
    const t0 = performance.now();
    await migrateSchema(db, undefined, options);
    const ms = performance.now() - t0;
    await db.close();
    await admin.query(`DROP DATABASE ${name}`);
    await admin.end();
    return ms;
  };
}

async function measure(label, once) {
  for (const options of Object.values(WAYS)) await once(options); // warm-up: modules, file cache
  const times = { history: [], baseline: [] };
  for (let i = 0; i < RUNS; i++) for (const [way, options] of Object.entries(WAYS)) times[way].push(await once(options));
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(' / ');
  console.log(`${label}: replaying every migration ${fmt(times.history)} ms, from the baseline ${fmt(times.baseline)} ms; ` +
    `median ratio ${(median(times.history) / median(times.baseline)).toFixed(2)}x`);
}

console.log(`new database to current schema, ${RUNS} runs each, node ${process.version}`);
await measure('SQLite    ', sqliteOnce);
let cluster;
const adminUrl = process.env.VOXCTL_BENCH_DATABASE_URL ?? (cluster = await startPostgresCluster()).adminUrl;
try {
  await measure('PostgreSQL', postgresOnce(adminUrl));
} finally {
  await cluster?.stop();
}
