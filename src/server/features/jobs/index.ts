/** The jobs feature as the other features see it (batch jobs: their records, idempotency and the work kind that renders items): they import it through this file only. */
export { createBatch } from './batch.js';
export { parseIdempotencyKey } from './idempotency.js';
export { enqueueJob, newJobId } from './jobs.js';
