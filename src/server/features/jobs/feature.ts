/** The jobs feature as its routes use it: the caller's batch jobs, listed and shown (DESIGN §4.8, §4.9). */
import type { Db } from '../../storage/db.js';
import type { Job, JobPage, JobStatus } from '../../../shared/schemas/tts.js';
import type { AudioLinkFor } from '../audio/index.js';
import { jobPage, ownJob, toJobView } from './jobs.js';

/** What the jobs routes call. */
export interface JobsFeature {
  /** A page of `userId`'s jobs, newest first, optionally of one status. */
  page(userId: string, q: { status?: JobStatus; limit: number; offset: number }): Promise<JobPage>;
  /** One job of `userId` with its items' audio links; `job_not_found` otherwise. */
  view(userId: string, jobId: string, link: AudioLinkFor): Promise<Job>;
}

/** Binds the jobs rules to the database (called once, by the composition root). */
export function createJobsFeature(deps: { db: Db }): JobsFeature {
  const { db } = deps;
  return {
    page: (userId, q) => jobPage(db, { userId, ...q }),
    view: async (userId, jobId, link) => toJobView(db, await ownJob(db, userId, jobId), link),
  };
}
