import { defineConfig } from 'vitest/config';

// Tests spawn real servers, engines and the built CLI: give them time, and fail on any Node warning.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/helpers/fail-on-warning.ts'],
    reporters: ['default'],
  },
});
