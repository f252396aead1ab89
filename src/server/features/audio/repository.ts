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
  /** When the audio retention deleted its file (`--audio-retention-days`); null while it is kept. */
  expired_at?: string | null;
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

/**
 * Audio the retention may delete: generated audio and single uploads stored before `before`, not yet
 * expired, oldest first — never a corpus's recordings (the user's data, kept until the corpus is deleted)
 * nor a speaker's sample (shared, made again on demand).
 */
export function expirableAudio(db: Db, o: { before: string; limit: number }): Promise<Pick<AudioRow, 'id' | 'path'>[]> {
  return db.all<Pick<AudioRow, 'id' | 'path'>>(
    `SELECT id, path FROM audio
     WHERE expired_at IS NULL AND created_at < ? AND kind IN ('tts', 'upload')
       AND NOT EXISTS (SELECT 1 FROM corpus_utterances cu WHERE cu.audio_id = audio.id)
     ORDER BY created_at LIMIT ?`,
    [o.before, o.limit],
  );
}

/** Marks audio rows expired at `at` (their files deleted); a row already marked keeps its time. */
export async function markAudioExpired(db: Db, ids: readonly string[], at: string): Promise<void> {
  if (ids.length === 0) return;
  await db.run(`UPDATE audio SET expired_at = ? WHERE expired_at IS NULL AND id IN (${ids.map(() => '?').join(', ')})`, [at, ...ids]);
}

/** Paths of audio the retention expired since `since` (ISO time). */
export function expiredAudioPaths(db: Db, since: string): Promise<string[]> {
  return db.column<string>('SELECT path FROM audio WHERE expired_at >= ?', [since]);
}
