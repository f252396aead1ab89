import type { Db } from '../db.js';

/** Where an audio file came from. */
export type AudioKind = 'tts' | 'upload' | 'sample';
/** Container format of the stored bytes (sniffed, never taken from a file name). */
export type AudioFormat = 'wav' | 'mp3' | 'm4a';

/** One stored audio file; `path` is relative to `{dataDir}/audio`. */
export interface AudioRow {
  id: string;
  user_id: string | null;
  kind: AudioKind;
  path: string;
  format: AudioFormat;
  bytes: number;
  duration_seconds: number;
  sample_rate: number;
  created_at: string;
}

/** The audio row `id`, or undefined. */
export function getAudio(db: Db, id: string): AudioRow | undefined {
  return db.prepare('SELECT * FROM audio WHERE id = ?').get(id) as AudioRow | undefined;
}

/** Records a file that is already in place under the audio folder. */
export function insertAudio(db: Db, row: AudioRow): void {
  db.prepare(
    `INSERT INTO audio (id, user_id, kind, path, format, bytes, duration_seconds, sample_rate, created_at)
     VALUES (@id, @user_id, @kind, @path, @format, @bytes, @duration_seconds, @sample_rate, @created_at)`,
  ).run(row);
}

/** Relative paths of every recorded file (recovery compares them with the folder's content). */
export function listAudioPaths(db: Db): Set<string> {
  const rows = db.prepare('SELECT path FROM audio').pluck().all() as string[];
  return new Set(rows);
}
