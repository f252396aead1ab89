import type { Db } from '../db.js';
import type { EvaluationStatus } from '../../../shared/schemas/evaluations.js';
import { prepared } from './prepared.js';
import { ownedPageQuery } from './owned-page.js';

/** A row of `evaluations`; list columns are JSON text. */
export interface EvaluationRow {
  id: string;
  user_id: string;
  name: string | null;
  status: EvaluationStatus;
  total_utterances: number;
  completed_utterances: number;
  failed_syntheses: number;
  /** JSON array of provider ids, in request order. */
  providers: string;
  /** JSON array of canonical condition texts, in request order. */
  conditions: string;
  group_by: string;
  normalizer: string;
  normalizer_version: number;
  seed: number;
  /** Billing period the characters were reserved in. */
  period: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  summary: string | null;
  comparisons: string | null;
}

/** One speaker of an evaluation with its group value. */
export interface EvaluationSpeakerRow {
  idx: number;
  speaker_id: string;
  grp: string;
}

/** Identifies a synthesis (text × speaker) of an evaluation. */
export interface SynthesisKey {
  evaluationId: string;
  textIndex: number;
  speakerIndex: number;
}

/** A synthesis taken from the queue. */
export interface ClaimedSynthesis extends SynthesisKey {
  userId: string;
  period: string;
  characters: number;
  /** The conditioned audio files are already in place (a resumed synthesis). */
  synthesized: boolean;
}

/** A stored utterance result; the scores are null when the request or the synthesis failed. */
export interface UtteranceRecord {
  evaluation_id: string;
  text_index: number;
  speaker_index: number;
  condition_index: number;
  provider_index: number;
  transcript: string | null;
  error_code: string | null;
  error_message: string | null;
  wer: number | null;
  substitutions: number | null;
  deletions: number | null;
  insertions: number | null;
  reference_words: number | null;
  reference_chars: number | null;
  char_errors: number | null;
  latency_ms: number | null;
  confidence: number | null;
  audio_id: string | null;
}

/** An utterance with what its views need: speaker, group, reference text and the determinable flag. */
export interface UtteranceView extends UtteranceRecord {
  speaker_id: string;
  grp: string;
  reference: string;
  determinable: 0 | 1;
}

/** Inserts an evaluation (status `pending`), its texts, speakers and one queued synthesis per pair. */
export function insertEvaluation(
  db: Db,
  row: Omit<EvaluationRow, 'status' | 'completed_utterances' | 'failed_syntheses' | 'started_at' | 'completed_at' | 'summary' | 'comparisons'>,
  texts: readonly string[],
  speakers: readonly { speakerId: string; group: string }[],
  charactersOfText: readonly number[],
): void {
  db.prepare(
    `INSERT INTO evaluations (id, user_id, name, status, total_utterances, providers, conditions, group_by, normalizer,
                              normalizer_version, seed, period, created_at)
     VALUES (@id, @user_id, @name, 'pending', @total_utterances, @providers, @conditions, @group_by, @normalizer,
             @normalizer_version, @seed, @period, @created_at)`,
  ).run(row);
  const text = db.prepare('INSERT INTO evaluation_texts (evaluation_id, idx, text) VALUES (?, ?, ?)');
  texts.forEach((t, i) => text.run(row.id, i, t));
  const speaker = db.prepare('INSERT INTO evaluation_speakers (evaluation_id, idx, speaker_id, grp) VALUES (?, ?, ?, ?)');
  speakers.forEach((s, i) => speaker.run(row.id, i, s.speakerId, s.group));
  const synthesis = db.prepare(
    'INSERT INTO evaluation_syntheses (evaluation_id, text_index, speaker_index, characters) VALUES (?, ?, ?, ?)',
  );
  for (let t = 0; t < texts.length; t++) {
    for (let s = 0; s < speakers.length; s++) synthesis.run(row.id, t, s, charactersOfText[t]);
  }
}

/** The evaluation `id` of `userId` (another user's reads as absent); any user's without `userId`. */
export function getEvaluation(db: Db, id: string, userId?: string): EvaluationRow | undefined {
  const row = prepared(db, 'SELECT * FROM evaluations WHERE id = ?').get(id) as EvaluationRow | undefined;
  return row && (userId === undefined || row.user_id === userId) ? row : undefined;
}

/** The status of evaluation `id` (the runner checks it before each request, to stop on cancel). */
export function evaluationStatus(db: Db, id: string): EvaluationStatus | undefined {
  return prepared(db, 'SELECT status FROM evaluations WHERE id = ?').pluck().get(id) as EvaluationStatus | undefined;
}

/** SQL of the queue and listing reads, exported so the query-plan test checks what production runs. */
export const EVALUATION_SQL = {
  /** The worker's FIFO claim of syntheses (`limit`). */
  claimPending: `SELECT s.evaluation_id, s.text_index, s.speaker_index, s.characters, s.synthesized, e.user_id, e.period
     FROM evaluation_syntheses s JOIN evaluations e ON e.id = s.evaluation_id
     WHERE s.status = 'pending' ORDER BY s.rowid LIMIT ?`,
  /** Whether an evaluation still has work (`evaluationId`). */
  hasOpen: `SELECT 1 FROM evaluation_syntheses WHERE evaluation_id = ? AND status IN ('pending', 'processing') LIMIT 1`,
} as const;

/** A page of `userId`'s evaluations, newest first, optionally of one status. */
export function listEvaluations(
  db: Db,
  q: { userId: string; status?: EvaluationStatus; limit: number; offset: number },
): { rows: EvaluationRow[]; total: number } {
  const page = ownedPageQuery('evaluations', q);
  const total = db.prepare(page.total.sql).pluck().get(...page.total.params) as number;
  const rows = db.prepare(page.items.sql).all(...page.items.params) as EvaluationRow[];
  return { rows, total };
}

/** The texts of an evaluation in index order. */
export function listEvaluationTexts(db: Db, evaluationId: string): string[] {
  return db.prepare('SELECT text FROM evaluation_texts WHERE evaluation_id = ? ORDER BY idx').pluck().all(evaluationId) as string[];
}

/** The speakers of an evaluation in index order. */
export function listEvaluationSpeakers(db: Db, evaluationId: string): EvaluationSpeakerRow[] {
  return db
    .prepare('SELECT idx, speaker_id, grp FROM evaluation_speakers WHERE evaluation_id = ? ORDER BY idx')
    .all(evaluationId) as EvaluationSpeakerRow[];
}

/** Syntheses a crash left `processing` go back to `pending`; returns how many. */
export function requeueProcessingSyntheses(db: Db): number {
  return db.prepare(`UPDATE evaluation_syntheses SET status = 'pending' WHERE status = 'processing'`).run().changes;
}

/** Takes up to `limit` pending syntheses in FIFO order, marks them `processing` and starts their evaluations. */
export function claimPendingSyntheses(db: Db, limit: number, now: string): ClaimedSynthesis[] {
  const rows = prepared(db, EVALUATION_SQL.claimPending).all(limit) as {
    evaluation_id: string;
    text_index: number;
    speaker_index: number;
    characters: number;
    synthesized: number;
    user_id: string;
    period: string;
  }[];
  const mark = prepared(
    db,
    `UPDATE evaluation_syntheses SET status = 'processing' WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ?`,
  );
  const start = prepared(
    db,
    `UPDATE evaluations SET status = 'processing', started_at = COALESCE(started_at, ?) WHERE id = ? AND status = 'pending'`,
  );
  return rows.map((r) => {
    mark.run(r.evaluation_id, r.text_index, r.speaker_index);
    start.run(now, r.evaluation_id);
    return {
      evaluationId: r.evaluation_id,
      textIndex: r.text_index,
      speakerIndex: r.speaker_index,
      characters: r.characters,
      synthesized: r.synthesized === 1,
      userId: r.user_id,
      period: r.period,
    };
  });
}

/** Records that the synthesis's conditioned audio files are in place (the audio rows commit with it). */
export function markSynthesized(db: Db, key: SynthesisKey): void {
  prepared(
    db,
    `UPDATE evaluation_syntheses SET synthesized = 1 WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ?`,
  ).run(key.evaluationId, key.textIndex, key.speakerIndex);
}

/** `condition_index * providers + provider_index` of the utterances of a synthesis already stored. */
export function storedUtteranceSlots(db: Db, key: SynthesisKey, providers: number): Set<number> {
  const rows = prepared(
    db,
    `SELECT condition_index, provider_index FROM evaluation_utterances
     WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ?`,
  ).all(key.evaluationId, key.textIndex, key.speakerIndex) as { condition_index: number; provider_index: number }[];
  return new Set(rows.map((r) => r.condition_index * providers + r.provider_index));
}

/**
 * Stores one utterance and counts it, unless it is already stored or the evaluation is no longer
 * running (cancelled); returns whether it was stored. Call inside a transaction.
 */
export function insertUtterance(db: Db, u: UtteranceRecord): boolean {
  const running = prepared(db, `SELECT 1 FROM evaluations WHERE id = ? AND status = 'processing'`).get(u.evaluation_id);
  if (!running) return false;
  const changes = prepared(
    db,
    `INSERT OR IGNORE INTO evaluation_utterances
       (evaluation_id, text_index, speaker_index, condition_index, provider_index, transcript, error_code, error_message,
        wer, substitutions, deletions, insertions, reference_words, reference_chars, char_errors, latency_ms, confidence, audio_id)
     VALUES (@evaluation_id, @text_index, @speaker_index, @condition_index, @provider_index, @transcript, @error_code,
             @error_message, @wer, @substitutions, @deletions, @insertions, @reference_words, @reference_chars, @char_errors,
             @latency_ms, @confidence, @audio_id)`,
  ).run(u).changes;
  if (changes === 0) return false;
  prepared(db, 'UPDATE evaluations SET completed_utterances = completed_utterances + 1 WHERE id = ?').run(u.evaluation_id);
  return true;
}

/** Ends a `processing` synthesis as `done` or `failed` (with the reason); false when it was not processing. */
export function finishSynthesis(db: Db, key: SynthesisKey, outcome: { error: string } | 'done'): boolean {
  const failed = outcome !== 'done';
  const changes = prepared(
    db,
    `UPDATE evaluation_syntheses SET status = ?, error = ?
     WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ? AND status = 'processing'`,
  ).run(failed ? 'failed' : 'done', failed ? outcome.error : null, key.evaluationId, key.textIndex, key.speakerIndex).changes;
  if (changes > 0 && failed) {
    prepared(db, 'UPDATE evaluations SET failed_syntheses = failed_syntheses + 1 WHERE id = ?').run(key.evaluationId);
  }
  return changes > 0;
}

/** Whether a synthesis of the evaluation is still pending or processing. */
export function hasOpenSyntheses(db: Db, evaluationId: string): boolean {
  return (
    prepared(db, EVALUATION_SQL.hasOpen).get(evaluationId) !==
    undefined
  );
}

/** Evaluations still running whose syntheses are all finished (to summarise; also after a crash). */
export function evaluationsReadyToFinish(db: Db): string[] {
  return db
    .prepare(
      `SELECT e.id FROM evaluations e WHERE e.status = 'processing' AND NOT EXISTS (
         SELECT 1 FROM evaluation_syntheses s WHERE s.evaluation_id = e.id AND s.status IN ('pending', 'processing'))`,
    )
    .pluck()
    .all() as string[];
}

/** Sets the final status, summary and comparisons of a `processing` evaluation; false when it was not. */
export function finishEvaluation(
  db: Db,
  r: { id: string; status: EvaluationStatus; summary: string | null; comparisons: string | null; now: string },
): boolean {
  return (
    db
      .prepare(
        `UPDATE evaluations SET status = ?, summary = ?, comparisons = ?, completed_at = ? WHERE id = ? AND status = 'processing'`,
      )
      .run(r.status, r.summary, r.comparisons, r.now, r.id).changes > 0
  );
}

/**
 * Cancels an evaluation that is still pending or processing: its unfinished syntheses become
 * `cancelled`; returns the characters of those never synthesised (to refund), or undefined when the
 * evaluation had already ended. Call inside a transaction.
 */
export function cancelEvaluation(db: Db, id: string, now: string): { unusedCharacters: number } | undefined {
  const changed = db
    .prepare(`UPDATE evaluations SET status = 'cancelled', completed_at = ? WHERE id = ? AND status IN ('pending', 'processing')`)
    .run(now, id).changes;
  if (changed === 0) return undefined;
  const unused = db
    .prepare(
      `SELECT COALESCE(SUM(characters), 0) FROM evaluation_syntheses
       WHERE evaluation_id = ? AND status IN ('pending', 'processing') AND synthesized = 0`,
    )
    .pluck()
    .get(id) as number;
  db.prepare(`UPDATE evaluation_syntheses SET status = 'cancelled' WHERE evaluation_id = ? AND status IN ('pending', 'processing')`).run(id);
  return { unusedCharacters: unused };
}

/** Filters of an utterance listing, already mapped to indexes. */
export interface UtteranceFilter {
  providerIndex?: number;
  conditionIndex?: number;
  group?: string;
  errorsOnly?: boolean;
  determinableOnly?: boolean;
}

const ERRORS = 'u.substitutions + u.deletions + u.insertions';
// Errors on this audio while another provider got the same audio exactly right (DESIGN §8.4).
const DETERMINABLE = `CASE WHEN u.transcript IS NOT NULL AND ${ERRORS} > 0 AND EXISTS (
    SELECT 1 FROM evaluation_utterances o
    WHERE o.evaluation_id = u.evaluation_id AND o.text_index = u.text_index AND o.speaker_index = u.speaker_index
      AND o.condition_index = u.condition_index AND o.provider_index <> u.provider_index
      AND o.transcript IS NOT NULL AND o.substitutions + o.deletions + o.insertions = 0) THEN 1 ELSE 0 END`;

/** The SQL of an utterance listing (exported so a test can EXPLAIN it). */
export function utteranceQuery(evaluationId: string, f: UtteranceFilter): { sql: string; params: unknown[] } {
  const clauses = ['u.evaluation_id = ?'];
  const params: unknown[] = [evaluationId];
  if (f.providerIndex !== undefined) {
    clauses.push('u.provider_index = ?');
    params.push(f.providerIndex);
  }
  if (f.conditionIndex !== undefined) {
    clauses.push('u.condition_index = ?');
    params.push(f.conditionIndex);
  }
  if (f.group !== undefined) {
    clauses.push('s.grp = ? COLLATE NOCASE');
    params.push(f.group);
  }
  if (f.errorsOnly) clauses.push(`(u.error_code IS NOT NULL OR ${ERRORS} > 0)`);
  const inner = `SELECT u.*, s.speaker_id, s.grp, t.text AS reference, ${DETERMINABLE} AS determinable
    FROM evaluation_utterances u
    JOIN evaluation_speakers s ON s.evaluation_id = u.evaluation_id AND s.idx = u.speaker_index
    JOIN evaluation_texts t ON t.evaluation_id = u.evaluation_id AND t.idx = u.text_index
    WHERE ${clauses.join(' AND ')}`;
  const sql = f.determinableOnly ? `SELECT * FROM (${inner}) WHERE determinable = 1` : `SELECT * FROM (${inner})`;
  return { sql, params };
}

/** A page of an evaluation's utterances (text, speaker, condition, provider order) and the match count. */
export function listUtterances(
  db: Db,
  evaluationId: string,
  f: UtteranceFilter,
  page: { limit: number; offset: number },
): { rows: UtteranceView[]; total: number } {
  const q = utteranceQuery(evaluationId, f);
  const total = db.prepare(`SELECT COUNT(*) FROM (${q.sql})`).pluck().get(...q.params) as number;
  const rows = db
    .prepare(`${q.sql} ORDER BY text_index, speaker_index, condition_index, provider_index LIMIT ? OFFSET ?`)
    .all(...q.params, page.limit, page.offset) as UtteranceView[];
  return { rows, total };
}

/** Every utterance of an evaluation in order (summary, report). */
export function allUtterances(db: Db, evaluationId: string): UtteranceView[] {
  const q = utteranceQuery(evaluationId, {});
  return db.prepare(`${q.sql} ORDER BY text_index, speaker_index, condition_index, provider_index`).all(...q.params) as UtteranceView[];
}
