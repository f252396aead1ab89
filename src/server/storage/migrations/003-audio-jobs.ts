import type { Migration } from './types.js';

/**
 * Audio files, batch jobs with their items (the persistent queue), datasets and idempotency keys.
 * `job_items` rows are inserted in request order, so `rowid` order is the queue's FIFO order.
 */
export const m003Audio: Migration = {
  version: 3,
  name: 'audio-jobs',
  up(db) {
    db.exec(`
      CREATE TABLE audio (
        id TEXT PRIMARY KEY,
        user_id TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('tts', 'upload', 'sample')),
        path TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('wav', 'mp3', 'm4a')),
        bytes INTEGER NOT NULL,
        duration_seconds REAL NOT NULL,
        sample_rate INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX audio_user_created ON audio (user_id, created_at DESC);

      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'partial')),
        total_items INTEGER NOT NULL,
        completed_items INTEGER NOT NULL DEFAULT 0,
        failed_items INTEGER NOT NULL DEFAULT 0,
        sample_rate INTEGER,
        created_at TEXT NOT NULL,
        started_at TEXT,
        completed_at TEXT
      );
      CREATE INDEX jobs_user_created ON jobs (user_id, created_at DESC);
      CREATE INDEX jobs_user_status_created ON jobs (user_id, status, created_at DESC);

      CREATE TABLE job_items (
        job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        speaker_id TEXT NOT NULL,
        text TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'success', 'failed')),
        audio_id TEXT REFERENCES audio (id),
        error TEXT,
        characters INTEGER NOT NULL,
        period TEXT NOT NULL,
        PRIMARY KEY (job_id, idx)
      );
      -- The queue: (status, rowid) gives the pending items in FIFO order without scanning finished ones.
      CREATE INDEX job_items_status ON job_items (status);

      CREATE TABLE datasets (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        row_count INTEGER NOT NULL,
        job_id TEXT REFERENCES jobs (id),
        created_at TEXT NOT NULL
      );
      CREATE INDEX datasets_user_created ON datasets (user_id, created_at DESC);

      CREATE TABLE dataset_rows (
        dataset_id TEXT NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        text TEXT NOT NULL,
        speaker_id TEXT NOT NULL,
        PRIMARY KEY (dataset_id, idx)
      ) WITHOUT ROWID;

      CREATE TABLE idempotency_keys (
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        response TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (user_id, key)
      );
    `);
  },
};
