/** The jobs feature as its routes use it: batches queued, and the caller's jobs listed and shown (DESIGN §4.8, §4.9). */
import type { Db } from '../../storage/db.js';
import type { Clock } from '../../clock.js';
import type { BatchCreated, BatchRequest, Job, JobPage, JobStatus } from '../../../shared/schemas/tts.js';
import type { AudioLinkFor } from '../audio/index.js';
import { jobPage, ownJob, toJobView } from './jobs.js';
import { createBatch } from './batch.js';
import { parseIdempotencyKey } from './idempotency.js';

/** What the jobs routes call. */
export interface JobsFeature {
  /** A page of `userId`'s jobs, newest first, optionally of one status. */
  page(userId: string, q: { status?: JobStatus; limit: number; offset: number }): Promise<JobPage>;
  /** One job of `userId` with its items' audio links; `job_not_found` otherwise. */
  view(userId: string, jobId: string, link: AudioLinkFor): Promise<Job>;
  /** Queues a batch of `userId` (DESIGN §4.8; an Idempotency-Key header answers a retry with the same job) and wakes the runner. */
  createBatch(userId: string, request: BatchRequest, idempotencyKey: string | undefined): Promise<BatchCreated>;
}

/** Binds the jobs rules to the database, the clock and the job runner (called once, by the composition root). */
export function createJobsFeature(deps: { db: Db; clock: Clock; wakeJobs: () => void }): JobsFeature {
  const { db, clock } = deps;
  return {
    page: (userId, q) => jobPage(db, { userId, ...q }),
    view: async (userId, jobId, link) => toJobView(db, await ownJob(db, userId, jobId), link),
    async createBatch(userId, request, idempotencyKey) {
      const created = await createBatch(
        { db, now: clock.now() },
        { userId, items: request.items, sampleRate: request.sample_rate, idempotencyKey: parseIdempotencyKey(idempotencyKey) },
      );
      deps.wakeJobs();
      return created;
    },
  };
}
