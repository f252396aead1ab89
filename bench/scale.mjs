#!/usr/bin/env node
// Scale-out benchmark (issue 13, DESIGN §9). One run prints:
//   1. batch throughput: 200 flite batch items (two POST /v1/tts/batch of 100 items, ~250 characters each,
//      the same texts every run) on 1 instance × --workers 1, then on 2 instances × --workers 1 (one fresh
//      PostgreSQL database per run, each instance its own data dir; jobs submitted to instance A; timed
//      from the first submit until both jobs are `completed`, after one warm-up synthesis per instance). Goal: speed-up >= 1.8×. Also prints how the
//      items were split between the instances (job_items.lease_owner) and the CPU seconds each server
//      process and PostgreSQL spent during the timed part (to explain a missed goal).
//   2. GET /v1/speakers/{id} req/s, PostgreSQL vs SQLite: one instance each (--workers 1), autocannon
//      50 connections for BENCH_SECONDS (default 10) each, rotating over the keys of 1,000 enterprise users
//      per backend (200 are too few: SQLite answers ~20k req/s, above 200 × 1,000 a minute) so no request
//      meets a 429; the ratio uses 2xx/s. Goal: PG/SQLite >= 0.6×. Also CPU µs per request of the server
//      and of PostgreSQL, and PostgreSQL transactions (pg_stat_database.xact_commit) per request.
//   3. added latency of a shared rate-limit check: 5,000 sequential hitUser calls on the shared limiter
//      (PostgreSQL) vs 5,000 on the local one (SQLite), in-process; p50/p99 in µs and the difference.
//      The clock moves 100 ms per call so the enterprise tier (1,000/min) never refuses one.
//
// Uses the BUILT service: run `npm run build` first, then `node bench/scale.mjs`.
// PostgreSQL: a throw-away cluster from scripts/postgres-cluster.mjs (Debian's `postgresql` package), or
// BENCH_DATABASE_URL = a superuser URL of an existing server (the bench creates and drops its databases).
// BENCH_PARTS=2,3 runs only the parts named (default: all three).
// Servers are child processes (`node bin/voxctl.js serve`); everything is cleaned up, also on error.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { databaseUrl, startPostgresCluster } from '../scripts/postgres-cluster.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;
const BOOTSTRAP_KEY = 'vox_' + randomBytes(20).toString('hex'); // same shape as test/helpers/server.ts
const USERS = 1000; // × 1,000 requests a minute: more than this machine can send, so no request meets a 429
const LIMITER_CALLS = 5000;
const PARTS = new Set((process.env.BENCH_PARTS ?? '1,2,3').split(',').map((p) => p.trim()));

const { openDatabase } = await import('../dist/server/storage/db.js');
const { createUserWithKey } = await import('../dist/server/features/accounts/users.js');
const { createSharedRateLimiter } = await import('../dist/server/features/limits/shared-rate-limiter.js');
const { createRateLimiter } = await import('../dist/server/features/limits/rate-limiter.js');

// ---------------------------------------------------------------- cleanup registry
const children = new Set();
const tempDirs = [];
const databases = [];
let cluster;
let adminUrl;

function tempDir(tag) {
  const d = mkdtempSync(join(tmpdir(), `voxctl-scale-${tag}-`));
  tempDirs.push(d);
  return d;
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    children.delete(child);
    return;
  }
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
  children.delete(child);
}

async function cleanup() {
  await Promise.all([...children].map(stopChild));
  if (adminUrl && !cluster) {
    // An existing server: drop what we created (our servers are stopped, so nothing holds a connection).
    const c = new pg.Client({ connectionString: adminUrl });
    try {
      await c.connect();
      for (const name of databases) await c.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => {});
    } finally {
      await c.end().catch(() => {});
    }
  }
  if (cluster) await cluster.stop();
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
}

// ---------------------------------------------------------------- helpers
/** Starts `voxctl serve` and resolves once it listens; the URL goes in through the environment (not in ps). */
function startServe({ dataDir, dbUrl, workers = 1 }) {
  const env = { ...process.env, VOXCTL_BOOTSTRAP_KEY: BOOTSTRAP_KEY };
  delete env.VOXCTL_DATABASE_URL;
  if (dbUrl) env.VOXCTL_DATABASE_URL = dbUrl;
  const args = [join(root, 'bin/voxctl.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--workers', String(workers), '--log-level', 'silent'];
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(seen);
      if (m) {
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.stdout.resume();
        child.stderr.resume();
        resolve({ child, url: m[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`voxctl serve exited with ${code} before listening:\n${seen.replace(BOOTSTRAP_KEY, '***')}`)));
  });
}

/** A fresh database on the server; returns its URL. */
async function freshDatabase(tag) {
  const name = `voxbench_${tag}_${randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  } finally {
    await c.end();
  }
  databases.push(name);
  return databaseUrl(adminUrl, name);
}

async function withPg(url, fn) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function api(base, path, init = {}, key = BOOTSTRAP_KEY) {
  const res = await fetch(`${base}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
  });
  const body = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path} → ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const TICK = 100; // USER_HZ on Linux
/** CPU seconds (user + system) of a process, its reaped children included. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields after "(comm) ": state=0, ppid=1 ... utime=11, stime=12, cutime=13, cstime=14
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICK;
  } catch {
    return NaN;
  }
}

/** CPU seconds of the PostgreSQL postmaster of `url` and all its live children (local server only). */
async function postgresCpu(url) {
  try {
    const ppidOf = (pid) => {
      const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
    };
    // The backend's parent is the postmaster (read while the backend still exists).
    const postmaster = await withPg(url, async (c) => ppidOf((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid));
    let total = cpuSeconds(postmaster);
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p)) continue;
      try {
        if (ppidOf(p) === postmaster) {
          const s = readFileSync(`/proc/${p}/stat`, 'utf8');
          const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
          total += (Number(f[11]) + Number(f[12])) / TICK;
        }
      } catch {
        // gone meanwhile
      }
    }
    return total;
  } catch {
    return NaN;
  }
}

/** CPU seconds the whole machine spent busy (all processes, all cores) since boot, from /proc/stat. */
function machineBusy() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / TICK;
  } catch {
    return NaN;
  }
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const la = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Deterministic texts of ~250 characters (the same in every run and every mode).
const WORDS = ('the quick brown fox jumps over a lazy dog while seven happy children sing loudly near old oak trees ' +
  'under a bright morning sky and a gentle breeze carries the smell of fresh bread from the village bakery ' +
  'where an old baker hums a tune about rivers mountains and distant harbours full of painted boats').split(' ');
function text(i) {
  const out = [];
  let k = i * 13;
  while (out.join(' ').length < 245) out.push(WORDS[(k = (k * 31 + 7) % WORDS.length)]);
  return `Item ${i}. ${out.join(' ')}.`;
}
const TEXTS = Array.from({ length: 200 }, (_, i) => text(i));

// ---------------------------------------------------------------- 1. batch throughput
async function batchRun(instances) {
  const url = await freshDatabase(`batch${instances}`);
  const servers = [];
  for (let k = 0; k < instances; k++) servers.push(await startServe({ dataDir: tempDir(`batch${instances}-${k}`), dbUrl: url, workers: 1 }));
  try {
    const speaker = await withPg(url, async (c) => {
      await c.query(`UPDATE users SET subscription_tier = 'enterprise'`);
      return (await c.query(`SELECT id FROM speakers WHERE engine = 'flite' ORDER BY seq LIMIT 1`)).rows[0].id;
    });
    const names = new Map();
    for (const [k, s] of servers.entries()) {
      const h = await api(s.url, '/health');
      names.set(h.instance_id, String.fromCharCode(65 + k));
      // Warm-up: one synthesis per instance so no timed item pays the engine's first load.
      await api(s.url, '/v1/tts/synthesize', { method: 'POST', body: JSON.stringify({ text: 'Warm up.', speaker_id: speaker }) });
    }
    const [A] = servers;
    const cpu0 = servers.map((s) => cpuSeconds(s.child.pid));
    const pg0 = await postgresCpu(url);
    const busy0 = machineBusy();
    const t0 = performance.now();
    const jobs = [];
    for (let b = 0; b < 2; b++) {
      const items = TEXTS.slice(b * 100, b * 100 + 100).map((t) => ({ speaker_id: speaker, text: t }));
      jobs.push((await api(A.url, '/v1/tts/batch', { method: 'POST', body: JSON.stringify({ items }) })).job_id);
    }
    const done = new Set();
    while (done.size < jobs.length) {
      await sleep(100);
      for (const id of jobs) {
        if (done.has(id)) continue;
        const j = await api(A.url, `/v1/jobs/${id}`);
        if (j.status === 'completed') done.add(id);
        else if (j.status === 'failed' || j.status === 'partial') throw new Error(`job ${id} ended ${j.status}: ${JSON.stringify(j).slice(0, 500)}`);
      }
    }
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = servers.map((s, k) => cpuSeconds(s.child.pid) - cpu0[k]);
    const busy = machineBusy() - busy0;
    const pgCpu = (await postgresCpu(url)) - pg0;
    const split = await withPg(url, async (c) => (await c.query('SELECT lease_owner, count(*)::int AS n FROM job_items GROUP BY 1 ORDER BY 1')).rows);
    return { elapsed, cpu, pgCpu, busy, split: split.map((r) => `${names.get(r.lease_owner) ?? r.lease_owner ?? '(none)'}=${r.n}`).join(' ') };
  } finally {
    await Promise.all(servers.map((s) => stopChild(s.child)));
  }
}

// ---------------------------------------------------------------- 2. speakers req/s
async function makeUsers(target) {
  const db = await openDatabase(target);
  try {
    const now = new Date();
    // One transaction (the body may run again on PostgreSQL, so the keys are collected inside it).
    return await db.transaction(async () => {
      const keys = [];
      for (let k = 0; k < USERS; k++) keys.push((await createUserWithKey(db, { email: `bench${k}@example.com`, tier: 'enterprise', now })).key.key);
      return keys;
    });
  } finally {
    await db.close();
  }
}

async function load(name, url, keys, duration) {
  let i = 0;
  const r = await autocannon({
    url,
    connections,
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${keys[i++ % keys.length]}` } }) }],
  });
  return { name, rps: r['2xx'] / r.duration, p50: r.latency.p50, p99: r.latency.p99, ok: r['2xx'], other: r.non2xx + r.errors + r.timeouts };
}

async function speakersOn(backend) {
  const dataDir = tempDir(`speakers-${backend}`);
  let server;
  let keys;
  let dbUrl;
  if (backend === 'sqlite') {
    keys = await makeUsers({ file: join(dataDir, 'voxctl.db') });
    server = await startServe({ dataDir, workers: 1 });
  } else {
    dbUrl = await freshDatabase('speakers');
    server = await startServe({ dataDir, dbUrl, workers: 1 });
    keys = await makeUsers({ url: dbUrl });
  }
  // PostgreSQL transactions (each autocommit statement is one) per request: read before the load and after
  // the server stopped (a backend reports its counters at exit; a busy one only every second or so), so
  // the count covers the warm-up and the measured load, plus a few heartbeat and shutdown statements.
  const xacts = () => withPg(dbUrl, async (c) => Number((await c.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit));
  try {
    const list = await api(server.url, '/v1/speakers?limit=1', {}, keys[0]);
    const target = `${server.url}/v1/speakers/${encodeURIComponent(list.items[0].id)}`;
    const x0 = dbUrl ? await xacts() : NaN;
    const warm = await load('warm-up', target, keys, Math.min(2, seconds));
    const cpu0 = cpuSeconds(server.child.pid);
    const pg0 = dbUrl ? await postgresCpu(dbUrl) : NaN;
    const row = await load(backend, target, keys, seconds);
    row.cpu = cpuSeconds(server.child.pid) - cpu0;
    row.pgCpu = dbUrl ? (await postgresCpu(dbUrl)) - pg0 : NaN;
    if (dbUrl) {
      await stopChild(server.child);
      await sleep(500);
      row.xactsPerRequest = ((await xacts()) - x0 - 1) / (warm.ok + warm.other + row.ok + row.other);
    }
    return row;
  } finally {
    await stopChild(server.child);
  }
}

// ---------------------------------------------------------------- 3. rate-limit check latency
function steppingClock() {
  let t = Date.now();
  return { now: () => new Date((t += 100)) };
}

async function timeLimiter(limiter, userId) {
  const us = [];
  let refused = 0;
  for (let k = 0; k < 200; k++) await limiter.hitUser({ userId, tier: 'enterprise' }); // warm-up
  for (let k = 0; k < LIMITER_CALLS; k++) {
    const t0 = process.hrtime.bigint();
    const d = await limiter.hitUser({ userId, tier: 'enterprise' });
    us.push(Number(process.hrtime.bigint() - t0) / 1000);
    if (!d.allowed) refused++;
  }
  return { p50: pct(us, 50), p99: pct(us, 99), refused };
}

async function limiterLatency() {
  const url = await freshDatabase('limiter');
  const pgDb = await openDatabase({ url });
  const sqliteDb = await openDatabase({ file: join(tempDir('limiter'), 'voxctl.db') });
  let shared;
  let local;
  try {
    const pgUser = await createUserWithKey(pgDb, { email: 'limit@example.com', tier: 'enterprise', now: new Date() });
    const sqlUser = await createUserWithKey(sqliteDb, { email: 'limit@example.com', tier: 'enterprise', now: new Date() });
    shared = createSharedRateLimiter({ db: pgDb, clock: steppingClock() });
    local = await createRateLimiter({ db: sqliteDb, clock: steppingClock() });
    const l = await timeLimiter(local, sqlUser.user.id);
    const s = await timeLimiter(shared, pgUser.user.id);
    return { local: l, shared: s };
  } finally {
    await shared?.close();
    await local?.close();
    await pgDb.close();
    await sqliteDb.close();
  }
}

/** One batch result; CPU figures explain a missed goal: the servers' share of the machine and the rest's. */
function batchLine(label, r) {
  const servers = r.cpu.reduce((a, b) => a + b, 0);
  const others = r.busy - servers - (Number.isNaN(r.pgCpu) ? 0 : r.pgCpu);
  console.log(`   ${label}: ${r.elapsed.toFixed(2)} s   split ${r.split}   loadavg ${la()}`);
  console.log(`      CPU s during the run: servers ${r.cpu.map((c) => c.toFixed(1)).join(' + ')} (${(servers / r.elapsed).toFixed(2)} cores)   PostgreSQL ${r.pgCpu.toFixed(1)}   everything else on the machine ${others.toFixed(1)} (${(others / r.elapsed).toFixed(2)} cores)`);
}

// ---------------------------------------------------------------- main
let failed = false;
const onSignal = () => {
  console.error('interrupted: cleaning up');
  cleanup().finally(() => process.exit(130));
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
try {
  console.log(`node ${process.version}, loadavg at start ${la()}`);
  if (process.env.BENCH_DATABASE_URL) {
    adminUrl = process.env.BENCH_DATABASE_URL;
    console.log('PostgreSQL: BENCH_DATABASE_URL');
  } else {
    cluster = await startPostgresCluster();
    adminUrl = cluster.adminUrl;
    console.log('PostgreSQL: throw-away cluster (scripts/postgres-cluster.mjs)');
  }
  const pgVersion = await withPg(adminUrl, async (c) => (await c.query('SHOW server_version')).rows[0].server_version);
  console.log(`PostgreSQL ${pgVersion}\n`);

  if (PARTS.has('1')) {
  console.log(`1. batch throughput: 200 flite items (2 × 100, ~${Math.round(TEXTS.reduce((n, t) => n + t.length, 0) / TEXTS.length)} chars each), --workers 1 per instance`);
  const one = await batchRun(1);
  batchLine('1 instance ', one);
  const two = await batchRun(2);
  batchLine('2 instances', two);
  const speedup = one.elapsed / two.elapsed;
  console.log(`   speed-up ${speedup.toFixed(2)}× ${speedup >= 1.8 ? 'ok' : 'BELOW the 1.8× goal'}\n`);
  }
  if (PARTS.has('2')) {

  console.log(`2. GET /v1/speakers/{id}: ${connections} connections, ${seconds} s each, keys of ${USERS} enterprise users, --workers 1`);
  const sq = await speakersOn('sqlite');
  const pq = await speakersOn('postgres');
  for (const r of [sq, pq]) {
    const perReq = (cpu) => `${((cpu * 1e6) / (r.ok + r.other)).toFixed(0)} µs`;
    console.log(`   ${r.name.padEnd(8)} ${Math.round(r.rps).toString().padStart(6)} 2xx/s   p50 ${r.p50} ms   p99 ${r.p99} ms   2xx ${r.ok}   other ${r.other}`);
    console.log(`            CPU per request: server ${perReq(r.cpu)}${Number.isNaN(r.pgCpu) ? '' : `, PostgreSQL ${perReq(r.pgCpu)}, ${r.xactsPerRequest.toFixed(2)} PostgreSQL transactions`}   (server ${r.cpu.toFixed(1)} s${Number.isNaN(r.pgCpu) ? '' : `, PostgreSQL ${r.pgCpu.toFixed(1)} s`} in ${seconds} s)`);
  }
  const ratio = pq.rps / sq.rps;
  console.log(`   PG/SQLite ${ratio.toFixed(2)}× ${ratio >= 0.6 ? 'ok' : 'BELOW the 0.6× goal'}\n`);
  }
  if (PARTS.has('3')) {

  console.log(`3. rate-limit check, ${LIMITER_CALLS} sequential hitUser calls (enterprise), in-process`);
  const lim = await limiterLatency();
  console.log(`   local (SQLite)      p50 ${lim.local.p50.toFixed(1)} µs   p99 ${lim.local.p99.toFixed(1)} µs   refused ${lim.local.refused}`);
  console.log(`   shared (PostgreSQL) p50 ${lim.shared.p50.toFixed(1)} µs   p99 ${lim.shared.p99.toFixed(1)} µs   refused ${lim.shared.refused}`);
  console.log(`   added latency: p50 ${(lim.shared.p50 - lim.local.p50).toFixed(1)} µs   p99 ${(lim.shared.p99 - lim.local.p99).toFixed(1)} µs\n`);
  }
  console.log(`loadavg at end ${la()}`);
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
