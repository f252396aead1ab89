import type { SqlMigration } from './types.js';

/**
 * The event loop's delay while an evaluation's work ran (DESIGN §15.4): its p50 and p99 in milliseconds,
 * recorded when the work ends; null for an evaluation that has not run, or ran before it was measured.
 */
export const eventLoopLagMigration: SqlMigration = {
  name: 'event-loop-lag',
  sqlite: `
    ALTER TABLE evaluations ADD COLUMN event_loop_lag_p50_ms REAL;
    ALTER TABLE evaluations ADD COLUMN event_loop_lag_p99_ms REAL;
  `,
  postgres: `
    ALTER TABLE evaluations ADD COLUMN event_loop_lag_p50_ms DOUBLE PRECISION;
    ALTER TABLE evaluations ADD COLUMN event_loop_lag_p99_ms DOUBLE PRECISION;
  `,
};
