import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';
import { describe, expect, it } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { migrateRaw } from '../../../helpers/migrated-sqlite.js';
import { CORPUS_PAGE_SQL, CORPUS_UTTERANCE_PAGE_SQL } from '../../../../src/server/features/corpora/repository.js';

const Database = loadSqliteDriver();

const plan = (db: BetterSqlite3.Database, sql: string, ...args: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');

describe('corpora schema (DESIGN §10)', () => {
  const db = new Database(':memory:');
  migrateRaw(db);

  it('lists corpora and pages utterances through indexes', () => {
    expect(plan(db, CORPUS_PAGE_SQL, 'u', 20, 0)).toMatch(/USING INDEX corpora_user_created/);
    expect(plan(db, CORPUS_UTTERANCE_PAGE_SQL, 'cor_x', 20, 0)).toMatch(/USING INDEX sqlite_autoindex_corpus_utterances_1/);
  });

  it('allows the four layouts only, and one utterance id per corpus', () => {
    const insert = (id: string, layout: string) =>
      db
        .prepare(
          `INSERT INTO corpora (id, user_id, name, layout, utterance_count, speaker_count, total_duration_seconds, metadata_fields, created_at)
           VALUES (?, 'u', 'n', ?, 1, 1, 1.5, '[]', 'now')`,
        )
        .run(id, layout);
    expect(() => insert('cor_bad', 'tedlium')).toThrow(/CHECK/);
    insert('cor_ok', 'kaldi');
    const utt = (idx: number, id: string) =>
      db
        .prepare(
          `INSERT INTO corpus_utterances (corpus_id, idx, utterance_id, speaker, reference, duration_seconds, metadata, audio_id, sample_rate)
           VALUES ('cor_ok', ?, ?, NULL, 'hi', 1.5, '{}', 'aud_x', 16000)`,
        )
        .run(idx, id);
    utt(0, 'a');
    expect(() => utt(1, 'a')).toThrow(/UNIQUE/);
    // STRICT: a wrong type is refused, not stored as text.
    expect(() => db.prepare(`UPDATE corpora SET utterance_count = 'many' WHERE id = 'cor_ok'`).run()).toThrow(/cannot store TEXT/);
  });
});
