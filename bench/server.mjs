#!/usr/bin/env node
// Server benchmark (issue 2): autocannon, BENCH_CONNECTIONS (default 50) connections, BENCH_SECONDS (default 10) per target, one run:
//   1. a bare Fastify route returning a constant: the ceiling of this machine;
//   2. GET /v1/speakers?limit=20 (public route);
//   3. GET /v1/speakers/{id} (Bearer, enterprise keys: the full auth + rate-limit path);
//   4. GET /v1/users/me (Bearer) — the fallback Bearer route when there are no speakers yet;
//   and for each route, bare Fastify replaying that route's answer (same body, same headers): the ceiling of
//   sending those bytes at all, so the report can tell the cost of the answer's size from the route's work.
// Goals: real routes >= 50% of the bare route's requests/s, p99 < 10 ms, server RSS < 200 MB after the
// run; calculate-accuracy on a 1,000-word pair < 5 ms of server time.
//
// Both servers run in child processes (built dist/ via bin/voxctl.js) so RSS is the server's alone, and
// each target also prints the server's CPU time per answered request (Linux /proc): on a two-core machine
// the load generator shares the CPU, so req/s of a fast server is partly the generator's limit.
// Enterprise accounts allow 1,000 requests a minute each and anonymous callers 60 per IP: the load rotates
// over the keys of enough enterprise accounts that every request is a 2xx (the three targets at up to
// 100,000 req/s within one minute), so the figures measure the routes, not 429s.
// The public speakers list is therefore requested with a key too (identified, counted, same handler).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
// The routes' own cost by default; BENCH_LOG_LEVEL=info adds the two request lines Fastify writes per request.
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'silent';

/** Starts a child process and resolves with the first stderr/stdout match of `pattern`. */
function startChild(args, pattern, env = {}) {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk.toString();
      const m = pattern.exec(seen);
      if (m) resolve({ child, match: m });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before ready:\n${seen}`)));
  });
}

/** Resident set size of `pid` in MB (Linux /proc, else ps). */
function rssMb(pid) {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (kb) return Number(kb) / 1024;
  } catch {
    // not Linux
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString().trim()) / 1024;
}

/** CPU seconds (user + system) `pid` has used so far, from /proc; undefined where there is no /proc. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime (fields 14 and 15 of stat; 12 and 13 after the command name) in clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

async function load(name, url, keys, pid) {
  let i = 0;
  const opts = { url, connections, duration: seconds };
  if (keys) {
    opts.requests = [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${keys[i++ % keys.length]}` } }) }];
  }
  const cpuBefore = cpuSeconds(pid);
  const r = await autocannon(opts);
  const cpuAfter = cpuSeconds(pid);
  // The server's own CPU per answered request: unlike req/s, not capped by the load generator sharing the machine.
  const cpuUs = cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1e6) / r.requests.total;
  const row = { name, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, ok: r['2xx'], other: r.non2xx + r.errors + r.timeouts, cpuUs };
  const cpu = cpuUs === undefined ? '' : `   server CPU ${cpuUs.toFixed(1)} µs/request`;
  console.log(`${name.padEnd(34)} ${String(row.rps).padStart(7)} req/s   p50 ${row.p50} ms   p99 ${row.p99} ms   2xx ${row.ok}   other ${row.other}${cpu}`);
  return row;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeRequests(url, init, n) {
  const times = [];
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    times.push(performance.now() - t0);
  }
  return times;
}

const words = 'the quick brown fox jumps over a lazy dog while seven happy children sing loudly near old oak trees'.split(' ');
const sentence = (n, shift) => Array.from({ length: n }, (_, k) => words[(k * 7 + shift * (k % 5 === 0 ? 3 : 0)) % words.length]).join(' ');

const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-bench-'));
const children = [];
try {
  // 1. The ceiling: bare Fastify in its own process.
  const bareSrc = `import Fastify from 'fastify'; const app = Fastify(); app.get('/', async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 }); console.error('bare listening on http://127.0.0.1:' + app.server.address().port);`;
  const bare = await startChild(['--input-type=module', '-e', bareSrc], /listening on (http:\/\/\S+)/);
  children.push(bare.child);

  /** Loads bare Fastify answering every GET with `url`'s answer as the load's client gets it, then stops it. */
  const loadReplay = async (name, url, key) => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = Buffer.from(await res.arrayBuffer()).toString('base64');
    const headers = Object.fromEntries([...res.headers].filter(([h]) => !['content-length', 'date', 'connection', 'keep-alive'].includes(h)));
    const replaySrc = `import Fastify from 'fastify'; const { headers, body } = JSON.parse(process.env.BENCH_REPLAY);
      const bytes = Buffer.from(body, 'base64'); const app = Fastify(); app.get('/*', (req, reply) => { reply.headers(headers).send(bytes); });
      await app.listen({ host: '127.0.0.1', port: 0 }); console.error('replay listening on http://127.0.0.1:' + app.server.address().port);`;
    const replay = await startChild(['--input-type=module', '-e', replaySrc], /listening on (http:\/\/\S+)/, { BENCH_REPLAY: JSON.stringify({ headers, body }) });
    children.push(replay.child);
    try {
      return await load(name, `${replay.match[1]}/`, undefined, replay.child.pid);
    } finally {
      replay.child.kill('SIGTERM');
    }
  };

  // 2. voxctl: an enterprise user made with the admin command, plus enough enterprise users with a key each
  // (written straight to the database with the service's own functions, before the server opens it),
  // then the service. Rate windows belong to the account (DESIGN §4.14), so the load needs many accounts.
  const admin = execFileSync(process.execPath, [join(root, 'bin/voxctl.js'), 'admin', 'users', 'create', '--email', 'bench@example.com', '--tier', 'enterprise', '--data-dir', dataDir]);
  const firstKey = admin.toString().trim();
  // The admin's key is kept out of the load: the accuracy check after it needs its minute's budget.
  const keys = [];
  const accounts = Math.ceil((3 * Math.min(seconds, 60) * 100_000) / 1000);
  {
    const { openSqliteDatabase } = await import('../dist/server/storage/db.js');
    const { createUserWithKey } = await import('../dist/server/features/accounts/users.js');
    const db = await openSqliteDatabase(join(dataDir, 'voxctl.db'));
    // `accounts` × 1,000 requests a minute: more than this machine can send, so no request meets a 429.
    await db.transaction(async () => {
      for (let k = 0; k < accounts; k++) keys.push((await createUserWithKey(db, { email: `bench${k}@example.com`, tier: 'enterprise', now: new Date() })).key.key);
    });
    await db.close();
  }
  const svc = await startChild([join(root, 'bin/voxctl.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', logLevel], /listening on (http:\/\/\S+)/);
  children.push(svc.child);
  const base = svc.match[1];

  const speakersRes = await fetch(`${base}/v1/speakers?limit=1`, { headers: { authorization: `Bearer ${firstKey}` } });
  const speakerId = speakersRes.ok ? (await speakersRes.json()).items?.[0]?.id : undefined;

  console.log(`node ${process.version}, ${connections} connections, ${seconds} s per target, service log level ${logLevel}\n`);
  const rows = [];
  rows.push(await load('bare Fastify (ceiling)', `${bare.match[1]}/`, undefined, bare.child.pid));
  if (speakerId) {
    rows.push(await load('GET /v1/speakers?limit=20', `${base}/v1/speakers?limit=20`, keys, svc.child.pid));
    rows.push(await load('GET /v1/speakers/{id} (Bearer)', `${base}/v1/speakers/${encodeURIComponent(speakerId)}`, keys, svc.child.pid));
  } else {
    console.log('(no speakers route or catalogue yet: skipping the speakers targets)');
  }
  rows.push(await load('GET /v1/users/me (Bearer)', `${base}/v1/users/me`, keys, svc.child.pid));
  const rss = rssMb(svc.child.pid);
  // The same answers from bare Fastify, after the service's targets (its RSS is taken before).
  const replays = new Map();
  const routeUrls = { 'GET /v1/speakers?limit=20': `${base}/v1/speakers?limit=20`, 'GET /v1/users/me (Bearer)': `${base}/v1/users/me` };
  if (speakerId) routeUrls['GET /v1/speakers/{id} (Bearer)'] = `${base}/v1/speakers/${encodeURIComponent(speakerId)}`;
  for (const r of rows.slice(1)) replays.set(r.name, await loadReplay(`  replay of ${r.name.slice(4)}`, routeUrls[r.name], firstKey));

  const ceiling = rows[0].rps;
  console.log('\nratio to the bare route, p99 goal < 10 ms:');
  for (const r of rows.slice(1)) {
    const ratio = r.rps / ceiling;
    const cpuRatio = r.cpuUs && rows[0].cpuUs ? `   CPU per request ${(r.cpuUs / rows[0].cpuUs).toFixed(2)}x the bare route's` : '';
    console.log(`  ${r.name.padEnd(32)} ${(100 * ratio).toFixed(1)}% ${ratio >= 0.5 ? 'ok' : 'BELOW 50%'}   p99 ${r.p99} ms ${r.p99 < 10 ? 'ok' : 'OVER'}   non-2xx ${r.other}${cpuRatio}`);
  }
  console.log('\nsending each answer at all (bare Fastify replaying its body and headers) and the route against that:');
  for (const r of rows.slice(1)) {
    const same = replays.get(r.name);
    const cpu = r.cpuUs && same.cpuUs ? `   route CPU per request ${(r.cpuUs / same.cpuUs).toFixed(2)}x the replay's` : '';
    console.log(`  ${r.name.padEnd(32)} replay ${(100 * same.rps / ceiling).toFixed(1)}% of the bare route   route ${(100 * r.rps / same.rps).toFixed(1)}% of its replay${cpu}`);
  }
  console.log(`server RSS after the run: ${rss.toFixed(1)} MB ${rss < 200 ? 'ok' : 'OVER 200 MB'}`);

  // Accuracy on a 1,000-word pair: server time ≈ median round trip minus that of a trivial route.
  const accBody = JSON.stringify({ reference: sentence(1000, 0), hypothesis: sentence(1000, 1) });
  const probe = await fetch(`${base}/v1/stt/calculate-accuracy`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${firstKey}` }, body: accBody });
  if (probe.ok) {
    // The first key is the full-scope one: a read key gets 403 on any POST (DESIGN §4.15).
    const auth = { authorization: `Bearer ${firstKey}` };
    await timeRequests(`${base}/health`, { headers: auth }, 20);
    const baseline = median(await timeRequests(`${base}/health`, { headers: auth }, 100));
    const acc = await timeRequests(`${base}/v1/stt/calculate-accuracy`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: accBody }, 100);
    const server = median(acc) - baseline;
    console.log(`calculate-accuracy, 1,000-word pair: median round trip ${median(acc).toFixed(2)} ms, /health ${baseline.toFixed(2)} ms → server time ≈ ${server.toFixed(2)} ms ${server < 5 ? 'ok' : 'OVER 5 ms'}`);
  } else {
    console.log(`(calculate-accuracy not available: ${probe.status})`);
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
}
