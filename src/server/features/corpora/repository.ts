import type { Db } from '../../storage/db.js';
import type { AudioRow } from '../audio/index.js';
import type { CorpusLayoutName } from '../../../shared/constants.js';

/** A row of `corpora`; `metadata_fields` is a JSON array of names. */
export interface CorpusRow {
  id: string;
  user_id: string;
  name: string;
  layout: CorpusLayoutName;
  utterance_count: number;
  speaker_count: number;
  total_duration_seconds: number;
  metadata_fields: string;
  created_at: string;
}

/** A row of `corpus_utterances` (in manifest order by `idx`); `metadata` is a JSON object of strings. */
export interface CorpusUtteranceRow {
  corpus_id: string;
  idx: number;
  utterance_id: string;
  speaker: string | null;
  reference: string;
  duration_seconds: number;
  metadata: string;
  /** The `audio` row of the decoded WAV (its `path` is the blob's name). */
  audio_id: string;
  sample_rate: number;
  /** A recorded call (the `stm` layout, DESIGN §16.5): its STM segments as JSON; null for an utterance. */
  segments?: string | null;
}

/** An upload in progress: what it may have written to the blob store before its corpus is committed. */
export interface CorpusUploadRow {
  id: string;
  /** The instance writing it, and where it runs (a peer tells a dead writer by them). */
  owner: string;
  host: string;
  pid: number;
  /** Blob names are `{audio_prefix}{index}.wav` for index 0 .. planned-1. */
  audio_prefix: string;
  planned: number;
  created_at: string;
}

/** Rows per INSERT: few round trips on PostgreSQL, well under its 65,535 parameters. */
const BATCH = 500;

async function insertMany(db: Db, table: string, columns: readonly string[], rows: readonly Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    const part = rows.slice(i, i + BATCH);
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    await db.run(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${part.map(() => tuple).join(', ')}`,
      part.flatMap((r) => columns.map((c) => (r[c] ?? null) as string | number | null)),
    );
  }
}

const AUDIO_COLUMNS = ['id', 'user_id', 'kind', 'path', 'format', 'bytes', 'duration_seconds', 'sample_rate', 'created_at'] as const;
const UTTERANCE_COLUMNS = ['corpus_id', 'idx', 'utterance_id', 'speaker', 'reference', 'duration_seconds', 'metadata', 'audio_id', 'sample_rate', 'segments'] as const;

/**
 * Records a corpus with its audio rows and utterances and forgets its upload row: the caller wraps it in
 * the one transaction that makes the corpus exist.
 */
export async function insertCorpus(db: Db, corpus: CorpusRow, audio: readonly AudioRow[], utterances: readonly CorpusUtteranceRow[]): Promise<void> {
  await db.run(
    `INSERT INTO corpora (id, user_id, name, layout, utterance_count, speaker_count, total_duration_seconds, metadata_fields, created_at)
     VALUES (@id, @user_id, @name, @layout, @utterance_count, @speaker_count, @total_duration_seconds, @metadata_fields, @created_at)`,
    { ...corpus },
  );
  await insertMany(db, 'audio', AUDIO_COLUMNS, audio as unknown as Record<string, unknown>[]);
  await insertMany(db, 'corpus_utterances', UTTERANCE_COLUMNS, utterances as unknown as Record<string, unknown>[]);
}

/** The corpus `id` of `userId` (another user's reads as absent). */
export function getCorpusRow(db: Db, id: string, userId: string): Promise<CorpusRow | undefined> {
  return db.get<CorpusRow>('SELECT * FROM corpora WHERE id = ? AND user_id = ?', [id, userId]);
}

/** One page of a user's corpora, newest first (`userId, limit, offset`): exported for the query-plan test. */
export const CORPUS_PAGE_SQL = 'SELECT * FROM corpora WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?';

/** A page of `userId`'s corpora, newest first, and their count. */
export async function listCorpusRows(db: Db, q: { userId: string; limit: number; offset: number }): Promise<{ rows: CorpusRow[]; total: number }> {
  const total = await db.value<number>('SELECT COUNT(*) FROM corpora WHERE user_id = ?', [q.userId]);
  const rows = await db.all<CorpusRow>(CORPUS_PAGE_SQL, [q.userId, q.limit, q.offset]);
  return { rows, total: Number(total ?? 0) };
}

/** One page of a corpus's utterances in manifest order (`corpusId, limit, offset`): exported for the query-plan test. */
export const CORPUS_UTTERANCE_PAGE_SQL = 'SELECT * FROM corpus_utterances WHERE corpus_id = ? ORDER BY idx LIMIT ? OFFSET ?';

/** A page of a corpus's utterances in manifest order; all of them without `page`. */
export function listCorpusUtteranceRows(db: Db, corpusId: string, page?: { limit: number; offset: number }): Promise<CorpusUtteranceRow[]> {
  return page
    ? db.all<CorpusUtteranceRow>(CORPUS_UTTERANCE_PAGE_SQL, [corpusId, page.limit, page.offset])
    : db.all<CorpusUtteranceRow>('SELECT * FROM corpus_utterances WHERE corpus_id = ? ORDER BY idx', [corpusId]);
}

/**
 * Deletes a corpus, its utterances and their audio rows; resolves to the blob names to remove once the
 * transaction the caller wraps it in has committed (a crash in between leaves orphans the sweep removes).
 */
export async function deleteCorpusRows(db: Db, id: string): Promise<string[]> {
  const paths = await db.column<string>('SELECT a.path FROM corpus_utterances u JOIN audio a ON a.id = u.audio_id WHERE u.corpus_id = ?', [id]);
  await db.run('DELETE FROM audio WHERE id IN (SELECT audio_id FROM corpus_utterances WHERE corpus_id = ?)', [id]);
  await db.run('DELETE FROM corpus_utterances WHERE corpus_id = ?', [id]);
  await db.run('DELETE FROM corpora WHERE id = ?', [id]);
  return paths;
}

/** Records an upload before it writes its first blob. */
export async function insertCorpusUpload(db: Db, row: CorpusUploadRow): Promise<void> {
  await db.run(
    `INSERT INTO corpus_uploads (id, owner, host, pid, audio_prefix, planned, created_at)
     VALUES (@id, @owner, @host, @pid, @audio_prefix, @planned, @created_at)`,
    { ...row },
  );
}

/** Forgets an upload (committed, or cleaned up). */
export async function deleteCorpusUpload(db: Db, id: string): Promise<void> {
  await db.run('DELETE FROM corpus_uploads WHERE id = ?', [id]);
}

/** Blob name prefixes of the uploads in progress: their blobs are not orphans yet, whatever their age. */
export function listCorpusUploadPrefixes(db: Db): Promise<string[]> {
  return db.column<string>('SELECT audio_prefix FROM corpus_uploads');
}

/** Every upload in progress or left by a crash, with whether its owner still heartbeats (PostgreSQL peers). */
export function listCorpusUploads(db: Db): Promise<(CorpusUploadRow & { owner_heartbeat_at: string | null })[]> {
  return db.all(
    `SELECT u.*, i.heartbeat_at AS owner_heartbeat_at FROM corpus_uploads u LEFT JOIN instances i ON i.id = u.owner ORDER BY u.created_at`,
  );
}

/** How many evaluations of the corpus have not finished (`evaluations.corpus_id`, DESIGN §10.4–10.5). */
export async function runningEvaluationsUsingCorpus(db: Db, corpusId: string): Promise<number> {
  const n = await db.value<number>("SELECT COUNT(*) FROM evaluations WHERE corpus_id = ? AND status IN ('pending', 'processing')", [corpusId]);
  return Number(n ?? 0);
}
