import { defineConfig } from 'vitest/config';

// Tests spawn real servers, engines and the built CLI: give them time, and fail on any Node warning.
// Two projects: everything on SQLite (the embedded default), then the API suite and the scale-out tests
// again on a real PostgreSQL (DESIGN §9.7) — the same test files, the backend chosen by the helpers.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/helpers/fail-on-warning.ts'],
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
