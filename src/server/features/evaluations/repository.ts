import type { Db, SqlParam } from '../../storage/db.js';
import type { EvaluationMode, EvaluationStatus } from '../../../shared/schemas/evaluations.js';
import { ownedPageQuery } from '../../storage/repositories/owned-page.js';
import { expiredParams, expiredWhere, skipLocked, type Lease } from '../../storage/repositories/leases.js';

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
  /** JSON `EvaluationSetup` (DESIGN §11.1). */
  setup: string | null;
  /** The evaluation this one reruns or is compared with. */
  baseline_id: string | null;
  /** JSON `{token: price per minute in USD | null}` recorded at creation. */
  prices: string | null;
  /** The recorded corpus evaluated (DESIGN §10.5), null for synthesised speech. */
  corpus_id: string | null;
  corpus_name: string | null;
  /** `batch`, or `streaming` (DESIGN §13.2): the audio was streamed at `pace`. */
  mode: EvaluationMode;
  /** 1.0 = real time; null in batch mode. */
  pace: number | null;
  /** JSON of the checked probes (DESIGN §12); null without. */
  probes?: string | null;
  /** The event loop's delay while the work ran (DESIGN §15.4), in ms; null until recorded. */
  event_loop_lag_p50_ms?: number | null;
  event_loop_lag_p99_ms?: number | null;
  /** JSON `StoredConversation` (DESIGN §16.1); null for an evaluation of utterances. */
  conversation?: string | null;
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
  /** The instance that held it before (a takeover of a dead or stalled peer's lease); null when pending. */
  previousOwner?: string | null;
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
  /** The keyterm probe's second pass (DESIGN §12.4): its transcript, or why it failed. */
  boosted_transcript?: string | null;
  boosted_error?: string | null;
  /** A call's metrics (DESIGN §16.4), JSON `CallScore`; null for an utterance that is not a call. */
  call_scores?: string | null;
  /** What a stream measured (DESIGN §13.2); absent or null in batch mode. */
  first_partial_ms?: number | null;
  final_latency_ms?: number | null;
  revisions?: number | null;
  early_words?: number | null;
}

/** An utterance with what its views need: speaker, group, reference text and the determinable flag. */
export interface UtteranceView extends UtteranceRecord {
  /** The bootstrap block: the catalogue speaker, the corpus speaker, or `utterance:{id}` for a corpus utterance without one. */
  speaker_id: string;
  grp: string;
  reference: string;
  determinable: 0 | 1;
  /** Corpus evaluations: the corpus utterance id and speaker (null without one); null for synthesised speech. */
  utterance_id: string | null;
  corpus_speaker: string | null;
  /** Probes (DESIGN §12): a non-speech clip's kind; an entity sentence's entity. Null otherwise. */
  kind?: string | null;
  entity_type?: string | null;
  entity_value?: string | null;
}

/** One queue item of a corpus evaluation: a corpus utterance with its block and group. */
export interface CorpusItemRow {
  utteranceId: string;
  speaker: string | null;
  audioId: string;
  reference: string;
  /** The bootstrap block (stored as the item's speaker_id). */
  block: string;
  group: string;
}

// Rows per multi-row INSERT: one round trip for many rows on PostgreSQL, well under SQLite's parameter cap.
const INSERT_CHUNK = 64;

/**
 * Inserts `rows` into `table` in chunks of INSERT_CHUNK rows; the remainder goes row by row, so only two
 * statement texts per table exist (the SQLite seam caches every distinct text).
 */
async function insertRows(db: Db, table: string, columns: readonly string[], rows: readonly SqlParam[][]): Promise<void> {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
  const chunkSql = head + Array.from({ length: INSERT_CHUNK }, () => tuple).join(', ');
  let i = 0;
  for (; i + INSERT_CHUNK <= rows.length; i += INSERT_CHUNK) await db.run(chunkSql, rows.slice(i, i + INSERT_CHUNK).flat());
  for (; i < rows.length; i++) await db.run(head + tuple, rows[i]!);
}

/** The columns given when an evaluation is created. */
type NewEvaluation = Omit<
  EvaluationRow,
  'status' | 'completed_utterances' | 'failed_syntheses' | 'started_at' | 'completed_at' | 'summary' | 'comparisons' | 'corpus_id' | 'corpus_name' | 'setup' | 'baseline_id' | 'prices' | 'mode' | 'pace' | 'probes' | 'conversation'
> &
  Partial<Pick<EvaluationRow, 'setup' | 'baseline_id' | 'prices' | 'mode' | 'pace' | 'probes' | 'conversation'>>;

/**
 * Inserts a corpus evaluation (DESIGN §10.5): item `i` is text `i` (the reference), speaker `i` (its block
 * and group) and one queued item (i, i) with no characters; the corpus utterance behind it is fixed here.
 */
export async function insertCorpusEvaluation(
  db: Db,
  row: NewEvaluation & { corpus_id: string; corpus_name: string },
  items: readonly CorpusItemRow[],
  clips: readonly string[] = [],
  calls: readonly { utteranceId: string; truth: string }[] = [],
): Promise<void> {
  await db.run(
    `INSERT INTO evaluations (id, user_id, name, status, total_utterances, providers, conditions, group_by, normalizer,
                              normalizer_version, seed, period, created_at, corpus_id, corpus_name, setup, baseline_id, prices, mode, pace, probes, conversation)
     VALUES (@id, @user_id, @name, 'pending', @total_utterances, @providers, @conditions, @group_by, @normalizer,
             @normalizer_version, @seed, @period, @created_at, @corpus_id, @corpus_name, @setup, @baseline_id, @prices, @mode, @pace, @probes, @conversation)`,
    { setup: null, baseline_id: null, prices: null, mode: 'batch', pace: null, probes: null, conversation: null, ...row },
  );
  // Recorded calls (DESIGN §16.5): item i is call i + 1, its truth the STM segments known at upload.
  await insertRows(db, 'evaluation_calls', ['evaluation_id', 'idx', 'utterance_id', 'truth'], calls.map((c, i) => [row.id, i, c.utteranceId, c.truth]));
  // Non-speech clips (DESIGN §12.1, §15.5) follow the recordings as texts of their own, heard once per provider.
  const texts: SqlParam[][] = [...items.map((u, i) => [row.id, i, u.reference, null]), ...clips.map((kind, k) => [row.id, items.length + k, '', kind])];
  await insertRows(db, 'evaluation_texts', ['evaluation_id', 'idx', 'text', 'kind'], texts);
  await insertRows(db, 'evaluation_speakers', ['evaluation_id', 'idx', 'speaker_id', 'grp'], items.map((u, i) => [row.id, i, u.block, u.group]));
  await insertRows(
    db,
    'evaluation_corpus_items',
    ['evaluation_id', 'idx', 'utterance_id', 'speaker', 'audio_id'],
    items.map((u, i) => [row.id, i, u.utteranceId, u.speaker, u.audioId]),
  );
  const syntheses: SqlParam[][] = [...items.map((_u, i) => [row.id, i, i, 0]), ...clips.map((_k, k) => [row.id, items.length + k, 0, 0])];
  await insertRows(db, 'evaluation_syntheses', ['evaluation_id', 'text_index', 'speaker_index', 'characters'], syntheses);
}

/** One synthetic call as created (DESIGN §16.1): its whole reference (turn texts in turn order) and its characters. */
export interface NewCall {
  utteranceId: string;
  reference: string;
  characters: number;
}

/**
 * Inserts a conversation evaluation (DESIGN §16.1): call `i` is text `i` (its whole reference), speaker `i`
 * (its bootstrap block `call-{n}`, group `all`), one queued synthesis (i, i) charged the code points of its
 * turns, and a row of `evaluation_calls` whose truth is written when the call is built.
 */
export async function insertConversationEvaluation(db: Db, row: NewEvaluation & { conversation: string }, calls: readonly NewCall[]): Promise<void> {
  await db.run(
    `INSERT INTO evaluations (id, user_id, name, status, total_utterances, providers, conditions, group_by, normalizer,
                              normalizer_version, seed, period, created_at, setup, baseline_id, prices, mode, pace, probes, conversation)
     VALUES (@id, @user_id, @name, 'pending', @total_utterances, @providers, @conditions, @group_by, @normalizer,
             @normalizer_version, @seed, @period, @created_at, @setup, @baseline_id, @prices, @mode, @pace, @probes, @conversation)`,
    { setup: null, baseline_id: null, prices: null, mode: 'batch', pace: null, probes: null, ...row },
  );
  await insertRows(db, 'evaluation_texts', ['evaluation_id', 'idx', 'text'], calls.map((c, i) => [row.id, i, c.reference]));
  await insertRows(db, 'evaluation_speakers', ['evaluation_id', 'idx', 'speaker_id', 'grp'], calls.map((c, i) => [row.id, i, c.utteranceId, 'all']));
  await insertRows(db, 'evaluation_calls', ['evaluation_id', 'idx', 'utterance_id'], calls.map((c, i) => [row.id, i, c.utteranceId]));
  await insertRows(db, 'evaluation_syntheses', ['evaluation_id', 'text_index', 'speaker_index', 'characters'], calls.map((c, i) => [row.id, i, i, c.characters]));
}

/** Records a built call's truth (JSON `ReferenceTurn[]`); a rebuilt call (same seed, same voices) writes the same. */
export async function recordCallTruth(db: Db, evaluationId: string, idx: number, truth: string): Promise<void> {
  await db.run('UPDATE evaluation_calls SET truth = ? WHERE evaluation_id = ? AND idx = ?', [truth, evaluationId, idx]);
}

/** A call of a conversation evaluation: its id and its truth (JSON, null until built). */
export interface CallRow {
  idx: number;
  utterance_id: string;
  truth: string | null;
}

/** Call `idx` (from 0) of an evaluation, undefined when it has none. */
export async function getCall(db: Db, evaluationId: string, idx: number): Promise<CallRow | undefined> {
  return db.get<CallRow>('SELECT idx, utterance_id, truth FROM evaluation_calls WHERE evaluation_id = ? AND idx = ?', [evaluationId, idx]);
}

/** The first `limit` calls of an evaluation in call order (the report's timelines). */
export async function listCalls(db: Db, evaluationId: string, limit: number): Promise<CallRow[]> {
  return db.all<CallRow>('SELECT idx, utterance_id, truth FROM evaluation_calls WHERE evaluation_id = ? ORDER BY idx LIMIT ?', [evaluationId, limit]);
}

/** The stored metrics of one call × provider × condition (JSON `CallScore`), undefined before it is heard. */
export async function getCallScores(db: Db, key: { evaluationId: string; idx: number; providerIndex: number; conditionIndex: number }): Promise<string | null | undefined> {
  const row = await db.get<{ call_scores: string | null }>(
    'SELECT call_scores FROM evaluation_utterances WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ? AND condition_index = ? AND provider_index = ?',
    [key.evaluationId, key.idx, key.idx, key.conditionIndex, key.providerIndex],
  );
  return row === undefined ? undefined : row.call_scores;
}

/** The recording behind each item of a corpus evaluation, by index (empty for synthesised speech). */
export async function listCorpusItemAudio(db: Db, evaluationId: string): Promise<Map<number, string>> {
  const rows = await db.all<{ idx: number; audio_id: string }>('SELECT idx, audio_id FROM evaluation_corpus_items WHERE evaluation_id = ?', [evaluationId]);
  return new Map(rows.map((r) => [r.idx, r.audio_id]));
}

/** What a text of an evaluation is besides speech to score (DESIGN §12): a non-speech clip, or an entity sentence. */
export interface ProbeText {
  kind?: string;
  entity?: { type: string; value: string };
}

/** A text of an evaluation with its probe columns. */
export interface EvaluationTextRow {
  text: string;
  kind: string | null;
  entity_type: string | null;
  entity_value: string | null;
}

/** The texts of an evaluation in index order, with what each is for the probes. */
export async function listEvaluationTextRows(db: Db, evaluationId: string): Promise<EvaluationTextRow[]> {
  return db.all<EvaluationTextRow>('SELECT text, kind, entity_type, entity_value FROM evaluation_texts WHERE evaluation_id = ? ORDER BY idx', [evaluationId]);
}

/** Inserts an evaluation (status `pending`), its texts, speakers and one queued synthesis per pair. */
export async function insertEvaluation(
  db: Db,
  row: NewEvaluation,
  texts: readonly string[],
  speakers: readonly { speakerId: string; group: string }[],
  charactersOfText: readonly number[],
  probeTexts?: readonly (ProbeText | null)[],
): Promise<void> {
  await db.run(
    `INSERT INTO evaluations (id, user_id, name, status, total_utterances, providers, conditions, group_by, normalizer,
                              normalizer_version, seed, period, created_at, setup, baseline_id, prices, mode, pace, probes)
     VALUES (@id, @user_id, @name, 'pending', @total_utterances, @providers, @conditions, @group_by, @normalizer,
             @normalizer_version, @seed, @period, @created_at, @setup, @baseline_id, @prices, @mode, @pace, @probes)`,
    { setup: null, baseline_id: null, prices: null, mode: 'batch', pace: null, probes: null, ...row },
  );
  await insertRows(
    db,
    'evaluation_texts',
    ['evaluation_id', 'idx', 'text', 'kind', 'entity_type', 'entity_value'],
    texts.map((t, i) => [row.id, i, t, probeTexts?.[i]?.kind ?? null, probeTexts?.[i]?.entity?.type ?? null, probeTexts?.[i]?.entity?.value ?? null]),
  );
  await insertRows(
    db,
    'evaluation_speakers',
    ['evaluation_id', 'idx', 'speaker_id', 'grp'],
    speakers.map((s, i) => [row.id, i, s.speakerId, s.group]),
  );
  const syntheses: SqlParam[][] = [];
  for (let t = 0; t < texts.length; t++) {
    // A non-speech clip is no speaker's: one item, heard once per provider, nothing charged.
    if (probeTexts?.[t]?.kind) syntheses.push([row.id, t, 0, 0]);
    else for (let s = 0; s < speakers.length; s++) syntheses.push([row.id, t, s, charactersOfText[t]!]);
  }
  await insertRows(db, 'evaluation_syntheses', ['evaluation_id', 'text_index', 'speaker_index', 'characters'], syntheses);
}

/** How many syntheses (text × speaker items, a non-speech clip one each) an evaluation has. */
export async function countSyntheses(db: Db, evaluationId: string): Promise<number> {
  return Number(await db.value('SELECT COUNT(*) FROM evaluation_syntheses WHERE evaluation_id = ?', [evaluationId]));
}

/** The evaluation `id` of `userId` (another user's reads as absent); any user's without `userId`. */
export async function getEvaluation(db: Db, id: string, userId?: string): Promise<EvaluationRow | undefined> {
  const row = await db.get<EvaluationRow>('SELECT * FROM evaluations WHERE id = ?', [id]);
  return row && (userId === undefined || row.user_id === userId) ? row : undefined;
}

/** The status of evaluation `id` (the runner checks it before each request, to stop on cancel). */
export async function evaluationStatus(db: Db, id: string): Promise<EvaluationStatus | undefined> {
  return db.value<EvaluationStatus>('SELECT status FROM evaluations WHERE id = ?', [id]);
}

/** SQL of the queue and listing reads, exported so the query-plan test checks what production runs. */
export const EVALUATION_SQL = {
  /** The worker's FIFO claim of syntheses (`limit`). */
  claimPending: `SELECT s.evaluation_id, s.text_index, s.speaker_index, s.characters, s.synthesized, s.lease_owner, e.user_id, e.period
     FROM evaluation_syntheses s JOIN evaluations e ON e.id = s.evaluation_id
     WHERE s.status = 'pending' ORDER BY s.rowid LIMIT ?`,
  /** Syntheses whose lease ran out or whose holder died, taken over before the pending ones (`now`, `now` less TAKEOVER_AFTER_MS, `limit`). */
  claimExpired: `SELECT s.evaluation_id, s.text_index, s.speaker_index, s.characters, s.synthesized, s.lease_owner, e.user_id, e.period
     FROM evaluation_syntheses s JOIN evaluations e ON e.id = s.evaluation_id
     WHERE ${expiredWhere('s')} ORDER BY s.rowid LIMIT ?`,
  /** Whether an evaluation still has work (`evaluationId`). */
  hasOpen: `SELECT 1 FROM evaluation_syntheses WHERE evaluation_id = ? AND status IN ('pending', 'processing') LIMIT 1`,
} as const;

/** A page of `userId`'s evaluations, newest first, optionally of one status. */
export async function listEvaluations(
  db: Db,
  q: { userId: string; status?: EvaluationStatus; limit: number; offset: number },
): Promise<{ rows: EvaluationRow[]; total: number }> {
  const page = ownedPageQuery('evaluations', q);
  // PostgreSQL's COUNT is a bigint, which its driver hands over as a string.
  const total = Number(await db.value(page.total.sql, page.total.params as SqlParam[]));
  const rows = await db.all<EvaluationRow>(page.items.sql, page.items.params as SqlParam[]);
  return { rows, total };
}

/** The texts of an evaluation in index order. */
export async function listEvaluationTexts(db: Db, evaluationId: string): Promise<string[]> {
  return db.column<string>('SELECT text FROM evaluation_texts WHERE evaluation_id = ? ORDER BY idx', [evaluationId]);
}

/** The speakers of an evaluation in index order. */
export async function listEvaluationSpeakers(db: Db, evaluationId: string): Promise<EvaluationSpeakerRow[]> {
  return db.all<EvaluationSpeakerRow>('SELECT idx, speaker_id, grp FROM evaluation_speakers WHERE evaluation_id = ? ORDER BY idx', [
    evaluationId,
  ]);
}

/** Syntheses a crash left `processing` go back to `pending`; returns how many. */
export async function requeueProcessingSyntheses(db: Db): Promise<number> {
  return db.run(`UPDATE evaluation_syntheses SET status = 'pending' WHERE status = 'processing'`);
}

/**
 * Takes up to `limit` syntheses — first those a dead or stalled instance held (DESIGN §14.11), then pending
 * ones in FIFO order — marks them `processing` and starts their evaluations, in one transaction (joined
 * when the caller has one open). `takeover: false` (the instance may not judge its peers now, DESIGN
 * §14.10) takes pending syntheses only.
 */
export async function claimPendingSyntheses(db: Db, limit: number, now: string, lease: Lease, opts: { takeover?: boolean } = {}): Promise<ClaimedSynthesis[]> {
  // READ COMMITTED: SKIP LOCKED passes over rows a peer is claiming instead of failing the transaction.
  return db.transaction(async () => {
    type Row = {
      evaluation_id: string;
      text_index: number;
      speaker_index: number;
      characters: number;
      synthesized: number;
      lease_owner: string | null;
      user_id: string;
      period: string;
    };
    // What a dead or stalled instance held first, so its work never waits behind the whole backlog.
    const rows = opts.takeover === false ? [] : await db.all<Row>(EVALUATION_SQL.claimExpired + skipLocked(db, 's'), [...expiredParams(now, lease.owner), limit]);
    if (rows.length < limit) rows.push(...(await db.all<Row>(EVALUATION_SQL.claimPending + skipLocked(db, 's'), [limit - rows.length])));
    const claimed: ClaimedSynthesis[] = [];
    for (const r of rows) {
      await db.run(
        `UPDATE evaluation_syntheses SET status = 'processing', lease_owner = ?, lease_expires_at = ?
         WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ?`,
        [lease.owner, lease.expiresAt, r.evaluation_id, r.text_index, r.speaker_index],
      );
      await db.run(`UPDATE evaluations SET status = 'processing', started_at = COALESCE(started_at, ?) WHERE id = ? AND status = 'pending'`, [
        now,
        r.evaluation_id,
      ]);
      claimed.push({
        evaluationId: r.evaluation_id,
        textIndex: r.text_index,
        speakerIndex: r.speaker_index,
        characters: r.characters,
        synthesized: r.synthesized === 1,
        userId: r.user_id,
        period: r.period,
        previousOwner: r.lease_owner,
      });
    }
    return claimed;
  }, { isolation: 'read committed' });
}

/** Records that the synthesis's conditioned audio files are in place (the audio rows commit with it). */
export async function markSynthesized(db: Db, key: SynthesisKey): Promise<void> {
  // Only while still processing: a cancel that already refunded these characters must not see them charged.
  await db.run(`UPDATE evaluation_syntheses SET synthesized = 1 WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ? AND status = 'processing'`, [
    key.evaluationId,
    key.textIndex,
    key.speakerIndex,
  ]);
}

/** `condition_index * providers + provider_index` of the utterances of a synthesis already stored. */
export async function storedUtteranceSlots(db: Db, key: SynthesisKey, providers: number): Promise<Set<number>> {
  const rows = await db.all<{ condition_index: number; provider_index: number }>(
    `SELECT condition_index, provider_index FROM evaluation_utterances
     WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ?`,
    [key.evaluationId, key.textIndex, key.speakerIndex],
  );
  return new Set(rows.map((r) => r.condition_index * providers + r.provider_index));
}

/**
 * Stores one utterance and counts it, unless it is already stored or the evaluation is no longer
 * running (cancelled); returns whether it was stored. Opens a transaction (or joins the caller's): the
 * status check, the insert and the count must not be split by a cancel.
 */
export async function insertUtterance(db: Db, u: UtteranceRecord): Promise<boolean> {
  return db.transaction(async () => {
    const running = await db.get(`SELECT 1 FROM evaluations WHERE id = ? AND status = 'processing'`, [u.evaluation_id]);
    if (!running) return false;
    const changes = await db.run(
      `INSERT INTO evaluation_utterances
         (evaluation_id, text_index, speaker_index, condition_index, provider_index, transcript, error_code, error_message,
          wer, substitutions, deletions, insertions, reference_words, reference_chars, char_errors, latency_ms, confidence, audio_id,
          first_partial_ms, final_latency_ms, revisions, early_words, boosted_transcript, boosted_error, call_scores)
       VALUES (@evaluation_id, @text_index, @speaker_index, @condition_index, @provider_index, @transcript, @error_code,
               @error_message, @wer, @substitutions, @deletions, @insertions, @reference_words, @reference_chars, @char_errors,
               @latency_ms, @confidence, @audio_id, @first_partial_ms, @final_latency_ms, @revisions, @early_words, @boosted_transcript, @boosted_error, @call_scores)
       ON CONFLICT DO NOTHING`,
      { first_partial_ms: null, final_latency_ms: null, revisions: null, early_words: null, boosted_transcript: null, boosted_error: null, call_scores: null, ...u },
    );
    if (changes === 0) return false;
    await db.run('UPDATE evaluations SET completed_utterances = completed_utterances + 1 WHERE id = ?', [u.evaluation_id]);
    return true;
  });
}

/**
 * Ends a `processing` synthesis `owner` holds as `done` or `failed` (with the reason); false when it was
 * not processing or another instance took it over after this one's lease ran out.
 */
export async function finishSynthesis(db: Db, key: SynthesisKey, outcome: { error: string } | 'done', owner: string): Promise<boolean> {
  const failed = outcome !== 'done';
  return db.transaction(async () => {
    const changes = await db.run(
      `UPDATE evaluation_syntheses SET status = ?, error = ?
       WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ? AND status = 'processing' AND lease_owner = ?`,
      [failed ? 'failed' : 'done', failed ? outcome.error : null, key.evaluationId, key.textIndex, key.speakerIndex, owner],
    );
    if (changes > 0 && failed) {
      await db.run('UPDATE evaluations SET failed_syntheses = failed_syntheses + 1 WHERE id = ?', [key.evaluationId]);
    }
    return changes > 0;
  });
}

/** Whether a synthesis of the evaluation is still pending or processing. */
export async function hasOpenSyntheses(db: Db, evaluationId: string): Promise<boolean> {
  return (await db.get(EVALUATION_SQL.hasOpen, [evaluationId])) !== undefined;
}

/** Evaluations still running whose syntheses are all finished (to summarise; also after a crash). */
export async function evaluationsReadyToFinish(db: Db): Promise<string[]> {
  return db.column<string>(
    `SELECT e.id FROM evaluations e WHERE e.status = 'processing' AND NOT EXISTS (
       SELECT 1 FROM evaluation_syntheses s WHERE s.evaluation_id = e.id AND s.status IN ('pending', 'processing'))`,
  );
}

/** Sets the final status, summary and comparisons of a `processing` evaluation; false when it was not. */
export async function finishEvaluation(
  db: Db,
  r: { id: string; status: EvaluationStatus; summary: string | null; comparisons: string | null; now: string },
): Promise<boolean> {
  const changes = await db.run(
    `UPDATE evaluations SET status = ?, summary = ?, comparisons = ?, completed_at = ? WHERE id = ? AND status = 'processing'`,
    [r.status, r.summary, r.comparisons, r.now, r.id],
  );
  return changes > 0;
}

/** Records the event loop's delay measured while the evaluation's work ran (DESIGN §15.4). */
export async function recordEventLoopLag(db: Db, id: string, lag: { p50: number; p99: number }): Promise<void> {
  await db.run('UPDATE evaluations SET event_loop_lag_p50_ms = ?, event_loop_lag_p99_ms = ? WHERE id = ?', [lag.p50, lag.p99, id]);
}

/**
 * Cancels an evaluation that is still pending or processing: its unfinished syntheses become
 * `cancelled`; returns the characters of those never synthesised (to refund), or undefined when the
 * evaluation had already ended. Call inside a transaction.
 */
export async function cancelEvaluation(db: Db, id: string, now: string): Promise<{ unusedCharacters: number } | undefined> {
  const changed = await db.run(
    `UPDATE evaluations SET status = 'cancelled', completed_at = ? WHERE id = ? AND status IN ('pending', 'processing')`,
    [now, id],
  );
  if (changed === 0) return undefined;
  // One statement reads and cancels each synthesis under its row lock: a synthesis marked synthesised
  // concurrently is either seen as made (kept charged) or, cancelled first, can no longer be marked.
  const cancelled = await db.all<{ characters: number; synthesized: number }>(
    `UPDATE evaluation_syntheses SET status = 'cancelled' WHERE evaluation_id = ? AND status IN ('pending', 'processing')
     RETURNING characters, synthesized`,
    [id],
  );
  const unused = cancelled.reduce((n, r) => n + (Number(r.synthesized) === 0 ? Number(r.characters) : 0), 0);
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
export function utteranceQuery(evaluationId: string, f: UtteranceFilter): { sql: string; params: SqlParam[] } {
  const clauses = ['u.evaluation_id = ?'];
  const params: SqlParam[] = [evaluationId];
  if (f.providerIndex !== undefined) {
    clauses.push('u.provider_index = ?');
    params.push(f.providerIndex);
  }
  if (f.conditionIndex !== undefined) {
    clauses.push('u.condition_index = ?');
    params.push(f.conditionIndex);
  }
  if (f.group !== undefined) {
    // lower() on both sides: PostgreSQL has no NOCASE collation; SQLite's lower() folds ASCII only, as NOCASE did.
    clauses.push('lower(s.grp) = lower(?)');
    params.push(f.group);
  }
  if (f.errorsOnly) clauses.push(`(u.error_code IS NOT NULL OR ${ERRORS} > 0)`);
  const inner = `SELECT u.*, s.speaker_id, s.grp, t.text AS reference, t.kind, t.entity_type, t.entity_value, ${DETERMINABLE} AS determinable,
      COALESCE(ci.utterance_id, cl.utterance_id) AS utterance_id, ci.speaker AS corpus_speaker
    FROM evaluation_utterances u
    JOIN evaluation_speakers s ON s.evaluation_id = u.evaluation_id AND s.idx = u.speaker_index
    JOIN evaluation_texts t ON t.evaluation_id = u.evaluation_id AND t.idx = u.text_index
    LEFT JOIN evaluation_corpus_items ci ON ci.evaluation_id = u.evaluation_id AND ci.idx = u.text_index
    LEFT JOIN evaluation_calls cl ON cl.evaluation_id = u.evaluation_id AND cl.idx = u.text_index
    WHERE ${clauses.join(' AND ')}`;
  // PostgreSQL 15 requires an alias on a subquery in FROM.
  const sql = f.determinableOnly ? `SELECT * FROM (${inner}) AS v WHERE determinable = 1` : `SELECT * FROM (${inner}) AS v`;
  return { sql, params };
}

/** A page of an evaluation's utterances (text, speaker, condition, provider order) and the match count. */
export async function listUtterances(
  db: Db,
  evaluationId: string,
  f: UtteranceFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: UtteranceView[]; total: number }> {
  const q = utteranceQuery(evaluationId, f);
  const total = Number(await db.value(`SELECT COUNT(*) FROM (${q.sql}) AS q`, q.params));
  const rows = await db.all<UtteranceView>(`${q.sql} ORDER BY text_index, speaker_index, condition_index, provider_index LIMIT ? OFFSET ?`, [
    ...q.params,
    page.limit,
    page.offset,
  ]);
  return { rows, total };
}

/** Every utterance of an evaluation in order (summary, report). */
export async function allUtterances(db: Db, evaluationId: string): Promise<UtteranceView[]> {
  const q = utteranceQuery(evaluationId, {});
  return db.all<UtteranceView>(`${q.sql} ORDER BY text_index, speaker_index, condition_index, provider_index`, q.params);
}
