import type { Db } from '../../storage/db.js';

export interface DatasetRowRecord {
  dataset_id: string;
  idx: number;
  text: string;
  speaker_id: string;
}

export interface DatasetRecord {
  id: string;
  user_id: string;
  name: string;
  row_count: number;
  job_id: string | null;
  created_at: string;
}

/** A dataset row with the audio of its job item, when that item succeeded. */
export interface DatasetRowWithAudio extends DatasetRowRecord {
  audio_id: string | null;
}

/** Inserts a dataset and all its rows (the caller wraps this in its transaction). */
export async function insertDataset(db: Db, ds: DatasetRecord, rows: Omit<DatasetRowRecord, 'dataset_id'>[]): Promise<void> {
  await db.run(
    `INSERT INTO datasets (id, user_id, name, row_count, job_id, created_at)
     VALUES (@id, @user_id, @name, @row_count, @job_id, @created_at)`,
    { ...ds },
  );
  for (const r of rows) await db.run('INSERT INTO dataset_rows (dataset_id, idx, text, speaker_id) VALUES (?, ?, ?, ?)', [ds.id, r.idx, r.text, r.speaker_id]);
}

/** The dataset `id` of `userId` (another user's reads as absent). */
export function getDataset(db: Db, id: string, userId: string): Promise<DatasetRecord | undefined> {
  return db.get<DatasetRecord>('SELECT * FROM datasets WHERE id = ? AND user_id = ?', [id, userId]);
}

/** One page of a user's datasets, newest first (`userId, limit, offset`): exported for the query-plan test. */
export const DATASET_PAGE_SQL = 'SELECT * FROM datasets WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?';

/** A page of `userId`'s datasets, newest first. */
export async function listDatasets(db: Db, q: { userId: string; limit: number; offset: number }): Promise<{ rows: DatasetRecord[]; total: number }> {
  const total = await db.value<number>('SELECT COUNT(*) FROM datasets WHERE user_id = ?', [q.userId]);
  const rows = await db.all<DatasetRecord>(DATASET_PAGE_SQL, [q.userId, q.limit, q.offset]);
  return { rows, total: Number(total ?? 0) };
}

/** Rows of a dataset in order, each with the audio id of its finished job item (if any). */
export function listDatasetRows(db: Db, dataset: DatasetRecord): Promise<DatasetRowWithAudio[]> {
  return db.all<DatasetRowWithAudio>(
    `SELECT r.*, CASE WHEN i.status = 'success' THEN i.audio_id END AS audio_id
       FROM dataset_rows r LEFT JOIN job_items i ON i.job_id = ? AND i.idx = r.idx
       WHERE r.dataset_id = ? ORDER BY r.idx`,
    [dataset.job_id, dataset.id],
  );
}
