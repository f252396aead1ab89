import type { Db } from '../../storage/db.js';

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
export function getAudio(db: Db, id: string): Promise<AudioRow | undefined> {
  return db.get<AudioRow>('SELECT * FROM audio WHERE id = ?', [id]);
}

/** Records a file that is already in place under the audio folder. */
export async function insertAudio(db: Db, row: AudioRow, opts: { ifAbsent?: boolean } = {}): Promise<void> {
  // `ifAbsent`: ids derived from the work (job items) may be recorded by whichever instance finishes first.
  await db.run(
    `INSERT INTO audio (id, user_id, kind, path, format, bytes, duration_seconds, sample_rate, created_at)
     VALUES (@id, @user_id, @kind, @path, @format, @bytes, @duration_seconds, @sample_rate, @created_at)${opts.ifAbsent ? ' ON CONFLICT (id) DO NOTHING' : ''}`,
    { ...row },
  );
}

/** Relative paths of every recorded file (recovery compares them with the folder's content). */
export async function listAudioPaths(db: Db): Promise<Set<string>> {
  return new Set(await db.column<string>('SELECT path FROM audio'));
}
