#!/usr/bin/env node
// CLI startup benchmark (issue 4): median wall time and peak RSS of the built CLI against `node -e 0`
// measured in the same run. Targets: `voxctl --version` <= 1.5x; `voxctl speakers list --json --limit 5`
// against a running local service <= 2x on Node 20 and <= 1.5x on Node 22 and later (issue 32 item 5).
// A third baseline is the floor of any CLI that asks a service: a bare Node script making the same GET
// with `node:http` and printing the body; the list is also given as a ratio to it.
// Run `npm run build` first. Usage: node bench/cli.mjs [runs]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.argv[2] ?? 21);
const BIN = fileURLToPath(new URL('../bin/voxctl.js', import.meta.url));
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const root = mkdtempSync(join(tmpdir(), 'voxctl-bench-'));
const env = { ...process.env, HOME: root, VOXCTL_CONFIG_DIR: join(root, 'config'), VOXCTL_DATA_DIR: join(root, 'data'), FORCE_COLOR: '0' };
delete env.DBUS_SESSION_BUS_ADDRESS;

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});

/** One run: wall ms (hrtime around the spawn) and peak RSS KB (GNU time), failing loudly on a non-zero exit. */
function measure(args, extraEnv = {}) {
  const cmd = TIME ? TIME : process.execPath;
  const argv = TIME ? ['-f', '__RSS=%M', process.execPath, ...args] : args;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env: { ...env, ...extraEnv }, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const rss = /__RSS=(\d+)/.exec(r.stderr ?? '')?.[1];
  return { ms, rssKb: rss ? Number(rss) : NaN };
}

// The same request as the CLI's list, without the CLI: node:http, the key, the body to stdout.
const BARE_GET = `require('node:http').get(process.env.VOXCTL_BASE_URL + '/v1/speakers?limit=5', { headers: { authorization: 'Bearer ' + process.env.VOXCTL_API_KEY } }, (res) => res.pipe(process.stdout))`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Runs the cases round-robin (so machine noise hits them alike) and summarises each. */
function bench(cases) {
  for (const c of cases) measure(c.args, c.env); // warm the file cache
  const runs = cases.map(() => []);
  for (let i = 0; i < RUNS; i++) cases.forEach((c, j) => runs[j].push(measure(c.args, c.env)));
  return cases.map((c, j) => ({ label: c.label, ms: median(runs[j].map((r) => r.ms)), rssKb: Math.max(...runs[j].map((r) => r.rssKb)) }));
}

const serve = spawnSync(process.execPath, [BIN, 'serve', '--detach', '--port', String(port), '--log-level', 'warn'], { env, encoding: 'utf8' });
if (serve.status !== 0) {
  console.error(`could not start the service: ${serve.stderr}`);
  process.exit(1);
}
const url = serve.stdout.trim();
const key = readFileSync(join(root, 'data', 'bootstrap-key'), 'utf8').trim();
try {
  const results = bench([
    { label: 'node -e 0', args: ['-e', '0'] },
    { label: 'voxctl --version', args: [BIN, '--version'] },
    { label: 'voxctl speakers list --json --limit 5', args: [BIN, 'speakers', 'list', '--json', '--limit', '5'], env: { VOXCTL_BASE_URL: url, VOXCTL_API_KEY: key } },
    { label: 'node: one GET, body printed', args: ['-e', BARE_GET], env: { VOXCTL_BASE_URL: url, VOXCTL_API_KEY: key } },
  ]);
  const baseline = results[0];
  const listTarget = Number(process.versions.node.split('.')[0]) >= 22 ? 1.5 : 2;
  const targets = { 'voxctl --version': 1.5, 'voxctl speakers list --json --limit 5': listTarget };
  console.log(`runs per command: ${RUNS} (median wall time, peak RSS)`);
  let ok = true;
  for (const r of results) {
    const ratio = r.ms / baseline.ms;
    const target = targets[r.label];
    const verdict = target === undefined ? '' : ratio <= target ? `ok (<= ${target}x)` : `OVER (> ${target}x)`;
    if (target !== undefined && ratio > target) ok = false;
    console.log(`${r.label.padEnd(40)} ${r.ms.toFixed(1).padStart(7)} ms  ${(r.rssKb / 1024).toFixed(1).padStart(6)} MB  ${ratio.toFixed(2)}x  ${verdict}`);
  }
  const list = results.find((r) => r.label.startsWith('voxctl speakers'));
  const floor = results.find((r) => r.label.startsWith('node: one GET'));
  console.log(`the list against the floor of one GET: ${(list.ms / floor.ms).toFixed(2)}x (the floor itself is ${(floor.ms / baseline.ms).toFixed(2)}x node -e 0)`);
  process.exitCode = ok ? 0 : 1;
} finally {
  spawnSync(process.execPath, [BIN, 'serve', 'stop'], { env });
  rmSync(root, { recursive: true, force: true });
}
