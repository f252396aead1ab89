import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const dist = fileURLToPath(new URL('./dist/', import.meta.url));

// Tests spawn real servers, engines and the built CLI: give them time, and fail on any Node warning.
//
// Tests import the project from `src/` (types, editor navigation) but run the build of it in `dist/`,
// loaded by Node itself: the CLI tests spawn that build anyway, and evaluating the server's ~300 modules
// through Vite's module runner cost 2-3 s in every test file (a third of a whole run). A global setup
// rebuilds first (incremental: under a second when nothing changed), so an edited source is never stale.
//
// Projects (`--project 'sqlite*'` is every file on SQLite, `--project 'postgres*'` the PostgreSQL pass):
// - `sqlite`: every file on SQLite (the embedded default), two files at a time;
// - `postgres`: the files that touch storage again on a real PostgreSQL (DESIGN §9.7), two at a time;
// - `sqlite-serial`, `postgres-serial`: the files whose subject is timing — a database outage and the
//   leases of two instances, the event loop under load, stream deadlines, memory under back-pressure, a
//   service kept responsive under hostile uploads — one at a time once the parallel group is done, so no
//   other file competes for the CPU. The crash tests are not among them: a SIGKILL mid-work and the
//   recovery after it are checked by what is stored, which a busier machine only makes slower to reach;
// - `compat` (only with VOXCTL_TEST_SUITE=compat, .ci/run's pass on the other Nodes): what differs between
//   Nodes — native modules, engines, the embedded default, the keychain, the CLI as a process.

/** Timing is their subject (see above): run alone, on SQLite. */
const SERIAL = [
  'test/api/health-under-load.test.ts',
  'test/api/latency-isolation.test.ts',
  'test/api/stt-stream-bounds.test.ts',
  'test/api/stt-stream-unread.test.ts',
  'test/api/corpora-bounds.test.ts',
  'test/api/corpora-decoders.test.ts',
  'test/cli/stt-stream-accuracy.test.ts',
  'test/unit/server/engines/tts/pool.test.ts',
  'test/unit/shared/accuracy.test.ts',
];

/** Timing is their subject on PostgreSQL too: hostile uploads, outages, two instances and their leases. */
const POSTGRES_SERIAL = [
  'test/api/corpora-bounds.test.ts',
  'test/api/corpora-decoders.test.ts',
  'test/scale/outage-takeover.test.ts',
  'test/scale/two-instances.test.ts',
  'test/scale/database-outage.test.ts',
];

/**
 * The PostgreSQL pass: what touches storage — the API suite (its routes read and write the database), the
 * multi-instance and migration suites, the blob contract. Left out are API files whose subject is an
 * engine, a stream or the browser and that read or write nothing a backend changes; they run on SQLite.
 */
const POSTGRES = ['test/api/**/*.test.ts', 'test/scale/**/*.test.ts', 'test/unit/server/storage/blobs.test.ts'];
const NOT_ON_POSTGRES = [
  'test/api/evaluation-report.browser.test.ts',
  'test/api/health-under-load.test.ts',
  'test/api/latency-isolation.test.ts',
  'test/api/stt-stream.test.ts',
  'test/api/stt-stream-bounds.test.ts',
  'test/api/stt-stream-unread.test.ts',
  'test/api/stt-transcribe.test.ts',
  'test/api/synthesis-determinism.test.ts',
];

/** What differs between Nodes (the compatibility pass of .ci/run): native modules, engines, processes. */
const COMPAT = [
  'test/unit/install.test.ts',
  'test/unit/server/process-tuning.test.ts',
  'test/unit/server/storage/*.test.ts',
  'test/unit/server/engines/**/*.test.ts',
  'test/unit/server/audio/*.test.ts',
  'test/api/health.test.ts',
  'test/api/synthesize.test.ts',
  'test/api/latency-isolation.test.ts',
  'test/api/stt-stream-unread.test.ts',
  'test/api/crash.test.ts',
  'test/api/metrics-release.test.ts',
  'test/cli/embedded.test.ts',
  'test/cli/keychain.test.ts',
  'test/cli/closed-pipe.test.ts',
  'test/cli/startup-imports.test.ts',
  'test/cli/commands.test.ts',
  'test/cli/serve-operations.test.ts',
  'test/cli/interactive.test.ts',
];

const POSTGRES_ENV = { VOXCTL_TEST_BACKEND: 'postgres', VOXCTL_TEST_REPLAY_TRANSACTIONS: '1' };

/** A project of this config; `workers` 1 is a serial project, run after the parallel group (`sequence.groupOrder`). */
function project(name: string, workers: 1 | 2, test: NonNullable<TestProjectInlineConfiguration['test']>): TestProjectInlineConfiguration {
  return { extends: true, test: { name, maxWorkers: workers, sequence: { groupOrder: workers === 1 ? 1 : 0 }, ...test } };
}

const projects =
  process.env.VOXCTL_TEST_SUITE === 'compat'
    ? [
        project('compat', 2, { include: COMPAT, exclude: SERIAL }),
        project('compat-serial', 1, { include: COMPAT.filter((f) => SERIAL.includes(f)) }),
      ]
    : [
        project('sqlite', 2, { include: ['test/**/*.test.ts'], exclude: ['test/scale/**', ...SERIAL] }),
        project('postgres', 2, {
          include: POSTGRES,
          exclude: [...NOT_ON_POSTGRES, ...POSTGRES_SERIAL],
          env: POSTGRES_ENV,
          globalSetup: ['test/setup/postgres.global.ts'],
        }),
        project('sqlite-serial', 1, { include: SERIAL }),
        project('postgres-serial', 1, { include: POSTGRES_SERIAL, env: POSTGRES_ENV, globalSetup: ['test/setup/postgres.global.ts'] }),
      ];

export default defineConfig({
  resolve: { alias: [{ find: /^(?:\.\.\/)+src\/(.*)\.js$/, replacement: `${dist}$1.js` }] },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/helpers/fail-on-warning.ts'],
    globalSetup: ['test/setup/build.global.ts', 'test/setup/sqlite-template.global.ts'],
    server: { deps: { external: [/\/dist\//] } },
    reporters: ['default'],
    projects,
  },
});
