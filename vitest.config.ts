import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const dist = fileURLToPath(new URL('./dist/', import.meta.url));

// Tests spawn real servers, engines and the built CLI: give them time, and fail on any Node warning.
// Two projects: everything on SQLite (the embedded default), then the API suite and the scale-out tests
// again on a real PostgreSQL (DESIGN §9.7) — the same test files, the backend chosen by the helpers.
//
// Tests import the project from `src/` (types, editor navigation) but run the build of it in `dist/`,
// loaded by Node itself: the CLI tests spawn that build anyway, and evaluating the server's ~300 modules
// through Vite's module runner cost 2-3 s in every test file (a third of a whole run). A global setup
// rebuilds first (incremental: under a second when nothing changed), so an edited source is never stale.
export default defineConfig({
  resolve: { alias: [{ find: /^(?:\.\.\/)+src\/(.*)\.js$/, replacement: `${dist}$1.js` }] },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/helpers/fail-on-warning.ts'],
    globalSetup: ['test/setup/build.global.ts'],
    server: { deps: { external: [/\/dist\//] } },
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['test/**/*.test.ts'], exclude: ['test/scale/**'] },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/api/**/*.test.ts', 'test/scale/**/*.test.ts', 'test/unit/server/storage/blobs.test.ts'],
          env: { VOXCTL_TEST_BACKEND: 'postgres', VOXCTL_TEST_REPLAY_TRANSACTIONS: '1' },
          globalSetup: ['test/setup/postgres.global.ts'],
        },
      },
    ],
  },
});
