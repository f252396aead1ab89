#!/usr/bin/env node
// `npm test`: lint (the layer rules of eslint.config.js) and type-check (src and test) first, stopping at the
// first problem; make sure the OS packages the tests need are present (installing them when we are root
// with apt-get), build, then run the whole suite inside a D-Bus session with an unlocked keyring.
// Never skips silently: a missing package we may not install stops the run with the exact command.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** OS packages and the file each one provides (the check). */
const REQUIRED = [
  { pkg: 'pocketsphinx', file: '/usr/bin/pocketsphinx_continuous' },
  { pkg: 'pocketsphinx-en-us', file: '/usr/share/pocketsphinx/model/en-us/en-us' },
  { pkg: 'flite', file: '/usr/bin/flite' },
  { pkg: 'sox', file: '/usr/bin/sox' },
  { pkg: 'gnome-keyring', file: '/usr/bin/gnome-keyring-daemon' },
  { pkg: 'dbus', file: '/usr/bin/dbus-run-session' },
  { pkg: 'libsecret-tools', file: '/usr/bin/secret-tool' },
  { pkg: 'chromium', file: '/usr/bin/chromium' },
  { pkg: 'tmux', file: '/usr/bin/tmux' },
  { pkg: 'sctk', file: '/usr/lib/sctk/bin/sclite' },
  // Corpora (DESIGN §10): real read speech with transcripts, turned into FLAC and OGG by sox in the tests.
  { pkg: 'pocketsphinx-testdata', file: '/usr/share/pocketsphinx/test/data' },
  { pkg: 'libsox-fmt-base', file: '/usr/lib/x86_64-linux-gnu/sox/libsox_fmt_vorbis.so', present: () => soxHasFormats() },
  // M4A is decoded by the OS's ffmpeg (DESIGN §17.4), and the tests make their MP3, Opus and M4A files with it.
  { pkg: 'ffmpeg', file: '/usr/bin/ffmpeg' },
  // The deploy files are checked by the tools that read them (DESIGN §14.9).
  { pkg: 'nginx', file: '/usr/sbin/nginx' },
  { pkg: 'systemd', file: '/usr/bin/systemd-analyze' },
  { pkg: 'openssl', file: '/usr/bin/openssl' },
  // A real scrape must pass `promtool check metrics` (DESIGN §14.17).
  { pkg: 'prometheus', file: '/usr/bin/promtool' },
  // The API suite runs a second time on a real PostgreSQL started from these binaries (DESIGN §9.7),
  // unless VOXCTL_TEST_DATABASE_URL names a server to use instead.
  { pkg: 'postgresql', present: () => Boolean(process.env.VOXCTL_TEST_DATABASE_URL) || hasPostgresServer() },
];

/** sox can write FLAC and OGG Vorbis (its format plugins live in a multiarch folder). */
function soxHasFormats() {
  const r = spawnSync('sox', ['--help-format', 'vorbis'], { encoding: 'utf8' });
  // `sox --help-format` exits 1 even when it knows the format: the text says whether it does.
  return /Format: vorbis/.test(r.stdout ?? '') && /Writes:/.test(r.stdout ?? '');
}

/** Debian keeps the server binaries per major version: /usr/lib/postgresql/{N}/bin/initdb. */
function hasPostgresServer() {
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((v) => existsSync(join(root, v, 'bin', 'initdb')));
}

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

// The cheap checks come first: a wrong import arrow or a type error fails the run in seconds, not after
// the suite. Arguments (`npm test -- test/api/x.test.ts`) narrow the suite, never these checks. The
// compatibility pass (VOXCTL_TEST_SUITE=compat, .ci/run on the other Nodes) leaves them to the full pass:
// eslint and tsc read the same sources on every Node, so a second run could only repeat the first.
const checks = process.env.VOXCTL_TEST_SUITE === 'compat' ? [] : ['lint', 'typecheck'];
if (checks.length === 0) console.error('Compatibility pass: lint and type-check are the full pass\'s (npm test without VOXCTL_TEST_SUITE).');
for (const check of checks) {
  if (sh('npm', ['run', check, '--silent']) !== 0) {
    console.error(`npm test stopped: \`npm run ${check}\` failed (above).`);
    process.exit(1);
  }
}

const missing = REQUIRED.filter((r) => !(r.present ? r.present() : existsSync(r.file))).map((r) => r.pkg);
if (missing.length > 0) {
  const install = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  const canApt = existsSync('/usr/bin/apt-get');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!canApt) {
    console.error(`The tests need these OS packages: ${missing.join(', ')}. Install them with your package manager, then run npm test again.`);
    process.exit(1);
  }
  if (!isRoot) {
    console.error(`The tests need OS packages that are missing. Run:\n  sudo apt-get update && sudo ${install}\nthen npm test again.`);
    process.exit(1);
  }
  console.error(`Installing OS packages the tests need: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (sh('apt-get', ['update', '-qq'], { env }) !== 0 || sh('sh', ['-c', install], { env }) !== 0) {
    console.error(`Installing failed. Run:\n  ${install}`);
    process.exit(1);
  }
}

if (sh('npm', ['run', 'build', '--silent']) !== 0) process.exit(1);

/** Whether something accepts connections on 127.0.0.1:`port`. */
function portInUse(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// The embedded-default tests need the real port 7723, which the README's first command leaves held by the
// service `voxctl` started on its own. That one is stopped (the next voxctl command starts it again);
// anything else on the port stops the run here rather than failing those tests half an hour later.
const EMBEDDED_PORT = 7723;
if (await portInUse(EMBEDDED_PORT)) {
  const probe = spawnSync(process.execPath, ['bin/voxctl.js', '--json', 'serve', 'status'], { encoding: 'utf8' });
  let status;
  try {
    status = JSON.parse(probe.stdout);
  } catch {
    status = undefined;
  }
  if (status?.running && status.autostarted && status.url === `http://127.0.0.1:${EMBEDDED_PORT}`) {
    console.error(`Stopping the local voxctl service that voxctl started on 127.0.0.1:${EMBEDDED_PORT} (pid ${status.pid}): the tests need the port; the next voxctl command starts it again.`);
    if (sh(process.execPath, ['bin/voxctl.js', 'serve', 'stop']) !== 0) process.exit(1);
  } else {
    console.error(`npm test stopped: port ${EMBEDDED_PORT} on 127.0.0.1 is in use by another process, and the embedded-default tests need it. Stop it (\`voxctl serve stop\` if it is a voxctl service you started), then run npm test again.`);
    process.exit(1);
  }
}

// A JSON report beside the usual output, so the run ends with one plain `N passed, N failed` line, and
// each file's time (scripts/file-timings.mjs), so it ends by naming the slowest files.
const reportDir = mkdtempSync(join(tmpdir(), 'voxctl-vitest-'));
const report = join(reportDir, 'report.json');
const timings = join(reportDir, 'timings.json');
const vitestArgs = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, '--reporter=./scripts/file-timings.mjs', ...process.argv.slice(2)];
// The keychain tests need a Secret Service: run everything in a private D-Bus session whose
// gnome-keyring is unlocked by scripts/with-keyring.mjs.
const started = Date.now();
const status = sh('dbus-run-session', ['--', 'node', 'scripts/with-keyring.mjs', 'npx', ...vitestArgs], { env: { ...process.env, VOXCTL_TEST_TIMINGS: timings } });
if (existsSync(timings)) printSlowest(JSON.parse(readFileSync(timings, 'utf8')), Date.now() - started);
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
  if (r.numTotalTests === 0) {
    console.error('No test ran.');
    process.exit(1);
  }
}
process.exit(status);

/**
 * The 20 slowest test files (project, seconds) and what all files took together: with two files at a time
 * the sum is more than the wall time, and the list says where a slower run went.
 */
function printSlowest(rows, wallMs) {
  const s = (ms) => (ms / 1000).toFixed(1);
  const total = rows.reduce((sum, r) => sum + r.ms, 0);
  console.log(`\nslowest test files (of ${rows.length}; all files ${s(total)} s, the suite ${s(wallMs)} s wall):`);
  for (const r of [...rows].sort((a, b) => b.ms - a.ms).slice(0, 20)) {
    console.log(`${s(r.ms).padStart(7)} s  ${r.project.padEnd(15)} ${r.file}`);
  }
}
