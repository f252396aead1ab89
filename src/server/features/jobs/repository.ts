import type { Db } from '../../storage/db.js';
import { ownedPageQuery } from '../../storage/repositories/owned-page.js';
import { expiredParams, expiredWhere, skipLocked, type Lease } from '../../storage/repositories/leases.js';

/** Job lifecycle states (DESIGN §4.8). */
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'partial';
/** Item lifecycle states of the queue. */
export type ItemStatus = 'pending' | 'processing' | 'success' | 'failed';

export interface JobRow {
  id: string;
  user_id: string;
  status: JobStatus;
  total_items: number;
  completed_items: number;
  failed_items: number;
  sample_rate: number | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface JobItemRow {
  job_id: string;
  idx: number;
  speaker_id: string;
  text: string;
  status: ItemStatus;
  audio_id: string | null;
  error: string | null;
  characters: number;
  period: string;
}

/** An item with the audio it produced (for job results and dataset rows). */
export interface JobItemWithAudio extends JobItemRow {
  duration_seconds: number | null;
}

/** A claimed item plus what the runner needs from its job. */
export interface ClaimedItem extends JobItemRow {
  user_id: string;
  sample_rate: number | null;
  /** The instance that held it before (`i.*` carries it): a takeover of a dead or stalled peer's lease. */
  lease_owner?: string | null;
}

/** Inserts a job (status `pending`) and its items in index order. */
export async function insertJob(
  db: Db,
  job: Pick<JobRow, 'id' | 'user_id' | 'total_items' | 'sample_rate' | 'created_at'>,
  items: Omit<JobItemRow, 'job_id' | 'status' | 'audio_id' | 'error'>[],
): Promise<void> {
  await db.run(
    `INSERT INTO jobs (id, user_id, status, total_items, sample_rate, created_at)
     VALUES (@id, @user_id, 'pending', @total_items, @sample_rate, @created_at)`,
    { ...job },
  );
  for (const it of items) {
    await db.run(
      `INSERT INTO job_items (job_id, idx, speaker_id, text, characters, period)
     VALUES (?, ?, ?, ?, ?, ?)`,
      [job.id, it.idx, it.speaker_id, it.text, it.characters, it.period],
    );
  }
}

/** The job `id` of `userId` (another user's job reads as absent). */
export async function getJob(db: Db, id: string, userId?: string): Promise<JobRow | undefined> {
  const row = await db.get<JobRow>('SELECT * FROM jobs WHERE id = ?', [id]);
  return row && (userId === undefined || row.user_id === userId) ? row : undefined;
}

/** A page of `userId`'s jobs, newest first, optionally of one status. */
export async function listJobs(
  db: Db,
  q: { userId: string; status?: JobStatus; limit: number; offset: number },
): Promise<{ rows: JobRow[]; total: number }> {
  const page = ownedPageQuery('jobs', q);
  const total = await db.value<number>(page.total.sql, page.total.params);
  const rows = await db.all<JobRow>(page.items.sql, page.items.params);
  return { rows, total: Number(total ?? 0) };
}

/** SQL of the job-item reads, exported so the query-plan test checks what production runs. */
export const JOB_ITEM_SQL = {
  /** A job's items in index order (`jobId`). */
  ofJob: `SELECT i.*, a.duration_seconds FROM job_items i LEFT JOIN audio a ON a.id = i.audio_id
       WHERE i.job_id = ? ORDER BY i.idx`,
  /** The worker's FIFO claim (`limit`). */
  claimPending: `SELECT i.*, j.user_id, j.sample_rate FROM job_items i JOIN jobs j ON j.id = i.job_id
       WHERE i.status = 'pending' ORDER BY i.rowid LIMIT ?`,
  /** Items whose lease ran out or whose holder died, taken over before the pending ones (`now`, `now` less TAKEOVER_AFTER_MS, `limit`). */
  claimExpired: `SELECT i.*, j.user_id, j.sample_rate FROM job_items i JOIN jobs j ON j.id = i.job_id
       WHERE ${expiredWhere('i')} ORDER BY i.rowid LIMIT ?`,
} as const;

/** Items of a job in index order, with the duration of their audio. */
export function listJobItems(db: Db, jobId: string): Promise<JobItemWithAudio[]> {
  return db.all<JobItemWithAudio>(JOB_ITEM_SQL.ofJob, [jobId]);
}

/** Items left `processing` by a crash go back to `pending`; returns how many. */
export function requeueProcessingItems(db: Db): Promise<number> {
  return db.run(`UPDATE job_items SET status = 'pending' WHERE status = 'processing'`);
}

/**
 * Takes up to `limit` items under `lease` — first those a dead or stalled instance held (DESIGN §14.11:
 * a kill is finished within 45 s whatever the backlog), then pending ones in FIFO order — marks them
 * `processing` and starts their jobs (call inside a transaction). `takeover: false` (the instance may not
 * judge its peers now, DESIGN §14.10) takes pending items only. On PostgreSQL the rows are locked as they
 * are read and rows another instance is claiming are skipped, so two instances never take the same item.
 */
export async function claimPendingItems(db: Db, limit: number, now: string, lease: Lease, opts: { takeover?: boolean } = {}): Promise<ClaimedItem[]> {
  const items = opts.takeover === false ? [] : await db.all<ClaimedItem>(JOB_ITEM_SQL.claimExpired + skipLocked(db, 'i'), [...expiredParams(now, lease.owner), limit]);
  if (items.length < limit) items.push(...(await db.all<ClaimedItem>(JOB_ITEM_SQL.claimPending + skipLocked(db, 'i'), [limit - items.length])));
  const jobs = new Set<string>();
  for (const it of items) {
    await db.run(`UPDATE job_items SET status = 'processing', lease_owner = ?, lease_expires_at = ? WHERE job_id = ? AND idx = ?`, [
      lease.owner,
      lease.expiresAt,
      it.job_id,
      it.idx,
    ]);
    it.status = 'processing';
    jobs.add(it.job_id);
  }
  for (const jobId of jobs) {
    await db.run(`UPDATE jobs SET status = 'processing', started_at = COALESCE(started_at, ?) WHERE id = ? AND status = 'pending'`, [now, jobId]);
  }
  return items;
}

/**
 * Records a finished item (`success` with its audio, or `failed` with the reason) and counts it in its
 * job — only while `owner` still holds it: an instance whose lease ran out and was taken over records
 * nothing. Resolves to whether it was recorded.
 */
export async function finishItem(
  db: Db,
  r: { jobId: string; idx: number; now: string; owner: string } & ({ audioId: string } | { error: string }),
): Promise<boolean> {
  const ok = 'audioId' in r;
  const changed = await db.run(
    `UPDATE job_items SET status = ?, audio_id = ?, error = ? WHERE job_id = ? AND idx = ? AND status = 'processing' AND lease_owner = ?`,
    [ok ? 'success' : 'failed', ok ? r.audioId : null, ok ? null : r.error, r.jobId, r.idx, r.owner],
  );
  if (changed === 0) return false;
  await db.run(
    ok
      ? 'UPDATE jobs SET completed_items = completed_items + 1 WHERE id = ?'
      : 'UPDATE jobs SET failed_items = failed_items + 1 WHERE id = ?',
    [r.jobId],
  );
  await db.run(
    `UPDATE jobs SET
       status = CASE WHEN failed_items = 0 THEN 'completed' WHEN completed_items = 0 THEN 'failed' ELSE 'partial' END,
       completed_at = ?
     WHERE id = ? AND completed_items + failed_items = total_items`,
    [r.now, r.jobId],
  );
  return true;
}
