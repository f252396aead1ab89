/**
 * The evaluation repository on the async seam over a real SQLite file: chunked inserts keep the queue's
 * FIFO order, claims taken at the same time never share a synthesis, an utterance is stored once, and
 * the listing's portable SQL (aliased subqueries, lower() group match) counts and pages as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../src/server/storage/db.js';
import { TEST_LEASE, TEST_OWNER } from '../../../helpers/work.js';
import {
  cancelEvaluation,
  claimPendingSyntheses,
  finishSynthesis,
  getEvaluation,
  insertEvaluation,
  insertUtterance,
  listEvaluations,
  listUtterances,
  type UtteranceRecord,
} from '../../../../src/server/features/evaluations/repository.js';

const NOW = '2026-01-02T03:04:05.000Z';

describe('evaluation repository', () => {
  let dir: string;
  let db: Db;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxctl-evalrepo-'));
    db = await openSqliteDatabase(join(dir, 'voxctl.db'));
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An evaluation of `texts` × `speakers` (groups cycle through A, b), one condition, two providers. */
  async function create(id: string, texts: number, speakers: number): Promise<void> {
    await insertEvaluation(
      db,
      {
        id,
        user_id: 'usr_1',
        name: null,
        total_utterances: texts * speakers * 2,
        providers: JSON.stringify(['stt-a-model-1', 'stt-c']),
        conditions: JSON.stringify(['clean']),
        group_by: 'accent',
        normalizer: 'basic',
        normalizer_version: 1,
        seed: 0,
        period: '2026-01',
        created_at: NOW,
      },
      Array.from({ length: texts }, (_, t) => `Text number ${t}.`),
      Array.from({ length: speakers }, (_, s) => ({ speakerId: `spk_${s}`, group: s % 2 === 0 ? 'A' : 'b' })),
      Array.from({ length: texts }, (_, t) => 10 + t),
    );
  }

  const utterance = (o: { t: number; s: number; p: number; errors?: number; failed?: boolean }): UtteranceRecord => ({
    evaluation_id: 'ev_1',
    text_index: o.t,
    speaker_index: o.s,
    condition_index: 0,
    provider_index: o.p,
    transcript: o.failed ? null : 'text number',
    error_code: o.failed ? 'timeout' : null,
    error_message: o.failed ? 'timed out' : null,
    wer: o.failed ? null : (o.errors ?? 0) / 3,
    substitutions: o.failed ? null : (o.errors ?? 0),
    deletions: o.failed ? null : 0,
    insertions: o.failed ? null : 0,
    reference_words: o.failed ? null : 3,
    reference_chars: o.failed ? null : 14,
    char_errors: o.failed ? null : (o.errors ?? 0),
    latency_ms: 5,
    confidence: null,
    audio_id: null,
  });

  it('queues every text × speaker in FIFO order across insert chunks; simultaneous claims never share one', async () => {
    // 5 × 30 = 150 syntheses: two full chunks of 64 and a remainder inserted row by row.
    await create('ev_1', 5, 30);
    expect(await db.value('SELECT COUNT(*) FROM evaluation_texts WHERE evaluation_id = ?', ['ev_1'])).toBe(5);
    expect(await db.value('SELECT COUNT(*) FROM evaluation_speakers WHERE evaluation_id = ?', ['ev_1'])).toBe(30);
    const both = await Promise.all([claimPendingSyntheses(db, 70, NOW, TEST_LEASE), claimPendingSyntheses(db, 70, NOW, TEST_LEASE)]);
    const rest = await claimPendingSyntheses(db, 70, NOW, TEST_LEASE);
    // Whichever claim ran first took the head of the queue; together they took 0..139 exactly once, in order.
    const [a, b] = both.sort((x, y) => x[0]!.textIndex - y[0]!.textIndex || x[0]!.speakerIndex - y[0]!.speakerIndex);
    const order = [...a!, ...b!, ...rest].map((c) => c.textIndex * 30 + c.speakerIndex);
    expect(order).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(rest).toHaveLength(10);
    expect(a![0]).toEqual({ evaluationId: 'ev_1', textIndex: 0, speakerIndex: 0, characters: 10, synthesized: false, userId: 'usr_1', period: '2026-01', previousOwner: null });
    expect(rest.at(-1)).toMatchObject({ textIndex: 4, speakerIndex: 29, characters: 14 });
    expect(await claimPendingSyntheses(db, 10, NOW, TEST_LEASE)).toEqual([]);
    expect(await getEvaluation(db, 'ev_1')).toMatchObject({ status: 'processing', started_at: NOW });
    expect(await db.value(`SELECT COUNT(*) FROM evaluation_syntheses WHERE status = 'processing'`)).toBe(150);
  });

  it('stores an utterance once, counts it once, and stores nothing once the evaluation is cancelled', async () => {
    await create('ev_1', 2, 2);
    expect(await insertUtterance(db, utterance({ t: 0, s: 0, p: 0 }))).toBe(false); // still pending
    const [first] = await claimPendingSyntheses(db, 1, NOW, TEST_LEASE);
    expect(await insertUtterance(db, utterance({ t: 0, s: 0, p: 0 }))).toBe(true);
    expect(await insertUtterance(db, utterance({ t: 0, s: 0, p: 0, errors: 2 }))).toBe(false);
    expect((await getEvaluation(db, 'ev_1'))!.completed_utterances).toBe(1);
    expect(await db.value('SELECT substitutions FROM evaluation_utterances WHERE evaluation_id = ?', ['ev_1'])).toBe(0);

    expect(await finishSynthesis(db, first!, { error: 'Synthesis failed: boom' }, TEST_OWNER)).toBe(true);
    expect(await finishSynthesis(db, first!, { error: 'Synthesis failed: boom' }, TEST_OWNER)).toBe(false);
    expect((await getEvaluation(db, 'ev_1'))!.failed_syntheses).toBe(1);

    // Three syntheses left, one of them claimed and already synthesised: only the other two are refunded.
    const [second] = await claimPendingSyntheses(db, 1, NOW, TEST_LEASE);
    await db.run('UPDATE evaluation_syntheses SET synthesized = 1 WHERE evaluation_id = ? AND text_index = ? AND speaker_index = ?', [
      'ev_1',
      second!.textIndex,
      second!.speakerIndex,
    ]);
    expect(await db.transaction(() => cancelEvaluation(db, 'ev_1', NOW))).toEqual({ unusedCharacters: 11 + 11 });
    expect(await db.transaction(() => cancelEvaluation(db, 'ev_1', NOW))).toBeUndefined();
    expect(await insertUtterance(db, utterance({ t: 1, s: 0, p: 0 }))).toBe(false);
    expect(await db.column(`SELECT DISTINCT status FROM evaluation_syntheses WHERE evaluation_id = ? AND status <> 'failed'`, ['ev_1'])).toEqual([
      'cancelled',
    ]);
  });

  it('filters, counts and pages utterances; a group matches whatever its case', async () => {
    await create('ev_1', 2, 2);
    await claimPendingSyntheses(db, 4, NOW, TEST_LEASE);
    for (let t = 0; t < 2; t++) {
      for (let s = 0; s < 2; s++) {
        // Provider 0 hears every audio exactly; provider 1 errs on text 1 and fails on speaker 1 of text 0.
        await insertUtterance(db, utterance({ t, s, p: 0 }));
        await insertUtterance(db, utterance({ t, s, p: 1, errors: t, failed: t === 0 && s === 1 }));
      }
    }
    const list = (f: Parameters<typeof listUtterances>[2], page = { limit: 50, offset: 0 }) => listUtterances(db, 'ev_1', f, page);
    expect((await list({})).total).toBe(8);
    expect((await list({ group: 'a' })).rows.map((u) => [u.speaker_id, u.grp])).toEqual(Array.from({ length: 4 }, () => ['spk_0', 'A']));
    expect((await list({ group: 'B', providerIndex: 1 })).total).toBe(2);
    expect((await list({ group: 'c' })).total).toBe(0);
    expect((await list({ errorsOnly: true })).total).toBe(3);
    const determinable = await list({ determinableOnly: true });
    expect(determinable.rows.map((u) => [u.text_index, u.speaker_index, u.provider_index, u.determinable])).toEqual([
      [1, 0, 1, 1],
      [1, 1, 1, 1],
    ]);
    const page = await list({ conditionIndex: 0 }, { limit: 3, offset: 3 });
    expect(page.total).toBe(8);
    expect(page.rows.map((u) => `${u.text_index}${u.speaker_index}${u.provider_index}`)).toEqual(['011', '100', '101']);
    expect(page.rows[0]!.reference).toBe('Text number 0.');
  });

  it('lists evaluations newest first with a numeric total', async () => {
    await create('ev_1', 1, 1);
    await db.run(`UPDATE evaluations SET created_at = '2025-12-31T00:00:00.000Z' WHERE id = 'ev_1'`);
    await create('ev_2', 1, 1);
    const page = await listEvaluations(db, { userId: 'usr_1', limit: 1, offset: 0 });
    expect(page).toMatchObject({ total: 2, rows: [{ id: 'ev_2', status: 'pending' }] });
    expect((await listEvaluations(db, { userId: 'usr_1', status: 'processing', limit: 5, offset: 0 })).total).toBe(0);
    expect((await listEvaluations(db, { userId: 'usr_2', limit: 5, offset: 0 })).total).toBe(0);
  });
});
