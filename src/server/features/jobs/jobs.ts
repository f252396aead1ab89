import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import { getJob, insertJob, listJobItems, listJobs, type JobRow } from './repository.js';
import type { Job, JobPage, JobResultItem, JobStatus, JobSummary } from '../../../shared/schemas/tts.js';
import { DomainError } from '../../../shared/errors.js';
import { reserveCharacters } from '../limits/index.js';
import { codePoints } from '../../../shared/text-rules.js';

/** A fresh job id (`job_` + 20 url-safe chars). */
export const newJobId = (): string => `job_${randomBytes(15).toString('base64url')}`;

/**
 * Reserves the characters of every item and queues the job (status `pending`). Call inside the
 * caller's transaction: the reservation and the rows commit together or not at all (429 stores nothing).
 * Pass `id` (from `newJobId`, drawn before the transaction) when the transaction may be re-run.
 */
export async function enqueueJob(
  db: Db,
  input: { id?: string; userId: string; items: { speakerId: string; text: string }[]; sampleRate: number | null; now: Date },
): Promise<JobRow> {
  const counts = input.items.map((it) => codePoints(it.text));
  const total = counts.reduce((a, b) => a + b, 0);
  const { period } = await reserveCharacters(db, { userId: input.userId, characters: total, now: input.now });
  const job: JobRow = {
    id: input.id ?? newJobId(),
    user_id: input.userId,
    status: 'pending',
    total_items: input.items.length,
    completed_items: 0,
    failed_items: 0,
    sample_rate: input.sampleRate,
    created_at: input.now.toISOString(),
    started_at: null,
    completed_at: null,
  };
  await insertJob(
    db,
    job,
    input.items.map((it, idx) => ({ idx, speaker_id: it.speakerId, text: it.text, characters: counts[idx]!, period })),
  );
  return job;
}

/** floor(100 × done / total), done = succeeded + failed (DESIGN §4.8). */
export const jobProgress = (job: Pick<JobRow, 'total_items' | 'completed_items' | 'failed_items'>): number =>
  job.total_items === 0 ? 100 : Math.floor((100 * (job.completed_items + job.failed_items)) / job.total_items);

/** A page of `userId`'s jobs, newest first, optionally of one status (GET /v1/jobs). */
export async function jobPage(db: Db, q: { userId: string; status?: JobStatus; limit: number; offset: number }): Promise<JobPage> {
  const { rows, total } = await listJobs(db, q);
  return { items: rows.map(toJobSummary), total, limit: q.limit, offset: q.offset, has_more: q.offset + rows.length < total };
}

/** `userId`'s job `jobId`; another user's job is `job_not_found` too, so ids reveal nothing. */
export async function ownJob(db: Db, userId: string, jobId: string): Promise<JobRow> {
  const job = await getJob(db, jobId, userId);
  if (!job) throw new DomainError('job_not_found', 'Job not found');
  return job;
}

/** The list view of a job. */
export function toJobSummary(job: JobRow): JobSummary {
  return { job_id: job.id, status: job.status, progress: jobProgress(job), total_items: job.total_items, created_at: job.created_at };
}

/** The single-job view; `results` (ordered by index) only once the job is `completed` or `partial`. */
export async function toJobView(db: Db, job: JobRow, urlFor: (audioId: string) => string): Promise<Job> {
  const view: Job = {
    job_id: job.id,
    status: job.status,
    progress: jobProgress(job),
    total_items: job.total_items,
    completed_items: job.completed_items,
    failed_items: job.failed_items,
    created_at: job.created_at,
  };
  if (job.started_at) view.started_at = job.started_at;
  if (job.completed_at) view.completed_at = job.completed_at;
  if (job.status === 'completed' || job.status === 'partial') {
    view.results = (await listJobItems(db, job.id)).map((it): JobResultItem =>
      it.status === 'success' && it.audio_id
        ? {
            index: it.idx,
            speaker_id: it.speaker_id,
            status: 'success',
            audio_url: urlFor(it.audio_id),
            duration_seconds: it.duration_seconds ?? 0,
          }
        : { index: it.idx, speaker_id: it.speaker_id, status: 'failed', error: it.error ?? 'Synthesis failed' },
    );
  }
  return view;
}
