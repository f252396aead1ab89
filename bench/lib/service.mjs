// What the service benchmarks share: start the built `voxctl serve` on a fresh data dir as an enterprise
// account, call its API, read a process's CPU time and memory from /proc, stop it. Run `npm run build` first.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawn } from 'node:child_process';

const BIN = new URL('../../bin/voxctl.js', import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The SQLite driver of this Node, through the same seam the service uses. */
export async function sqliteDriver() {
  const seam = await import(new URL('../../dist/server/storage/sqlite-driver.js', import.meta.url).href);
  return seam.loadSqliteDriver();
}

/** The environment voxctl gives a service it starts (and deploy/ gives its own), under the caller's. */
export async function serviceEnv() {
  const { SERVICE_ENV_DEFAULTS } = await import(new URL('../../dist/shared/constants.js', import.meta.url).href);
  return { ...SERVICE_ENV_DEFAULTS, ...process.env };
}

/**
 * Starts `voxctl serve` (extra CLI flags in `args`) on a fresh data dir with bootstrap key `key`, in the
 * environment of a service voxctl starts (`serviceEnv`), waits until it answers, and makes its account
 * enterprise (benchmarks send hundreds of requests a minute).
 */
export async function serve({ key, prefix = 'voxctl-bench-', args = [] }) {
  const Database = await sqliteDriver();
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', ...args], {
    env: { ...(await serviceEnv()), VOXCTL_BOOTSTRAP_KEY: key },
    stdio: 'ignore',
  });
  for (let i = 0; i < 600; i++) {
    const file = join(dataDir, 'server.json');
    if (existsSync(file)) {
      try {
        const { port } = JSON.parse(readFileSync(file, 'utf8'));
        const url = `http://127.0.0.1:${port}`;
        if ((await fetch(`${url}/health`)).ok) {
          const db = new Database(join(dataDir, 'voxctl.db'));
          db.prepare(`UPDATE users SET subscription_tier = 'enterprise'`).run();
          db.close();
          return { url, key, pid: proc.pid, dataDir, proc };
        }
      } catch {
        // not ready yet
      }
    }
    await sleep(100);
  }
  proc.kill('SIGKILL');
  throw new Error('voxctl serve did not start');
}

/** Stops a server started by `serve` (SIGTERM, waits for the exit) and removes its data dir. */
export async function stop(server) {
  if (server.proc.exitCode === null) {
    server.proc.kill('SIGTERM');
    await new Promise((r) => server.proc.once('exit', r));
  }
  rmSync(server.dataDir, { recursive: true, force: true });
}

/** One JSON call with the server's key; throws on a 4xx/5xx with the body. */
export async function api(server, method, path, json) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${server.key}`, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  const body = await res.json();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Polls `GET path` until its `status` is no longer pending or processing; returns the last body. */
export async function settle(server, path, everyMs = 250) {
  for (;;) {
    const body = await api(server, 'GET', path);
    if (!['pending', 'processing'].includes(body.status)) return body;
    await sleep(everyMs);
  }
}

/**
 * CPU seconds of a process and its reaped children (PocketSphinx and ffmpeg run as children): a measure
 * the other tenants of a shared machine do not move, unlike wall time.
 */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime, stime, cutime, cstime are fields 14..17 of stat(5); `fields` starts at field 3.
  return fields.slice(11, 15).reduce((n, v) => n + Number(v), 0) / 100;
}

/**
 * CPU seconds of `pid` and every process below it, live or reaped: a service's warm recognisers stay up
 * between utterances, so what they spent is not yet in the service's own reaped-children count.
 */
export function treeCpuSeconds(pid) {
  let children = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    // pgrep exits 1 when there is none
  }
  return children.reduce((n, child) => {
    try {
      return n + treeCpuSeconds(child);
    } catch {
      return n; // it ended in between: its time is now its parent's reaped-children time
    }
  }, cpuSeconds(pid));
}

/**
 * Resident memory of a process in MB: now (`rss`), the peak of its life so far (`peak`, VmHWM), and what
 * `rss` holds — `anon` (the heaps, the engines' memories) and `file` (pages of the node binary and the
 * libraries it runs, which grow with Node's own size, not with the service's).
 */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024, anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024 };
}

/**
 * Samples a process's memory every `everyMs` until `stop()`, which returns in MB the largest RSS sample
 * (`rss`), the largest RssAnon sample (`anon`) and the RssFile of the largest RSS sample (`file`).
 */
export function sampleRss(pid, everyMs = 100) {
  const first = memory(pid);
  let max = first.rss;
  let maxAnon = first.anon;
  let fileAtMax = first.file;
  const timer = setInterval(() => {
    try {
      const now = memory(pid);
      if (now.rss > max) {
        max = now.rss;
        fileAtMax = now.file;
      }
      maxAnon = Math.max(maxAnon, now.anon);
    } catch {
      // the process is gone
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { rss: max, anon: maxAnon, file: fileAtMax };
    },
  };
}
