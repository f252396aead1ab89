import type { Db } from '../db.js';

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
export function insertDataset(db: Db, ds: DatasetRecord, rows: Omit<DatasetRowRecord, 'dataset_id'>[]): void {
  db.prepare(
    `INSERT INTO datasets (id, user_id, name, row_count, job_id, created_at)
     VALUES (@id, @user_id, @name, @row_count, @job_id, @created_at)`,
  ).run(ds);
  const insert = db.prepare('INSERT INTO dataset_rows (dataset_id, idx, text, speaker_id) VALUES (?, ?, ?, ?)');
  for (const r of rows) insert.run(ds.id, r.idx, r.text, r.speaker_id);
}

/** The dataset `id` of `userId` (another user's reads as absent). */
export function getDataset(db: Db, id: string, userId: string): DatasetRecord | undefined {
  return db.prepare('SELECT * FROM datasets WHERE id = ? AND user_id = ?').get(id, userId) as DatasetRecord | undefined;
}

/** One page of a user's datasets, newest first (`userId, limit, offset`): exported for the query-plan test. */
export const DATASET_PAGE_SQL = 'SELECT * FROM datasets WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?';

/** A page of `userId`'s datasets, newest first. */
export function listDatasets(db: Db, q: { userId: string; limit: number; offset: number }): { rows: DatasetRecord[]; total: number } {
  const total = db.prepare('SELECT COUNT(*) FROM datasets WHERE user_id = ?').pluck().get(q.userId) as number;
  const rows = db.prepare(DATASET_PAGE_SQL).all(q.userId, q.limit, q.offset) as DatasetRecord[];
  return { rows, total };
}

/** Rows of a dataset in order, each with the audio id of its finished job item (if any). */
export function listDatasetRows(db: Db, dataset: DatasetRecord): DatasetRowWithAudio[] {
  return db
    .prepare(
      `SELECT r.*, CASE WHEN i.status = 'success' THEN i.audio_id END AS audio_id
       FROM dataset_rows r LEFT JOIN job_items i ON i.job_id = ? AND i.idx = r.idx
       WHERE r.dataset_id = ? ORDER BY r.idx`,
    )
    .all(dataset.job_id, dataset.id) as DatasetRowWithAudio[];
}
