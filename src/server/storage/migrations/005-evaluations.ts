import type { Migration } from './types.js';

/**
 * Evaluations (DESIGN §8). The queue unit is a synthesis (text × speaker): its audio is made once and
 * every condition and provider derives from it. `evaluation_utterances` rows are written one by one as
 * results arrive; their primary key is the utterance itself, so a resumed run can never add a second row.
 * `synthesized` records that the conditioned audio files of a synthesis are in place (a resumed run reads
 * them back instead of synthesising again, and a cancel refunds only what was never synthesised).
 */
export const m005Evaluations: Migration = {
  version: 5,
  name: 'evaluations',
  up(db) {
    db.exec(`
      CREATE TABLE evaluations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        name TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'partial', 'cancelled')),
        total_utterances INTEGER NOT NULL,
        completed_utterances INTEGER NOT NULL DEFAULT 0,
        failed_syntheses INTEGER NOT NULL DEFAULT 0,
        providers TEXT NOT NULL,
        conditions TEXT NOT NULL,
        group_by TEXT NOT NULL,
        normalizer TEXT NOT NULL,
        normalizer_version INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        period TEXT NOT NULL,
        created_at TEXT NOT NULL,
        started_at TEXT,
        completed_at TEXT,
        summary TEXT,
        comparisons TEXT
      );
      CREATE INDEX evaluations_user_created ON evaluations (user_id, created_at DESC);
      CREATE INDEX evaluations_status ON evaluations (status);

      CREATE TABLE evaluation_texts (
        evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (evaluation_id, idx)
      ) WITHOUT ROWID;

      -- grp: the speaker's value of the evaluation's group_by, fixed at creation.
      CREATE TABLE evaluation_speakers (
        evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        speaker_id TEXT NOT NULL,
        grp TEXT NOT NULL,
        PRIMARY KEY (evaluation_id, idx)
      ) WITHOUT ROWID;

      -- Inserted in (text, speaker) order, so rowid order is the queue's FIFO order.
      CREATE TABLE evaluation_syntheses (
        evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
        text_index INTEGER NOT NULL,
        speaker_index INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'done', 'failed', 'cancelled')),
        synthesized INTEGER NOT NULL DEFAULT 0 CHECK (synthesized IN (0, 1)),
        characters INTEGER NOT NULL,
        error TEXT,
        UNIQUE (evaluation_id, text_index, speaker_index)
      );
      CREATE INDEX evaluation_syntheses_status ON evaluation_syntheses (status);
      -- "Is anything of this evaluation still open?" after every synthesis: one lookup, not a scan.
      CREATE INDEX evaluation_syntheses_open ON evaluation_syntheses (evaluation_id, status);

      CREATE TABLE evaluation_utterances (
        evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
        text_index INTEGER NOT NULL,
        speaker_index INTEGER NOT NULL,
        condition_index INTEGER NOT NULL,
        provider_index INTEGER NOT NULL,
        transcript TEXT,
        error_code TEXT,
        error_message TEXT,
        wer REAL,
        substitutions INTEGER,
        deletions INTEGER,
        insertions INTEGER,
        reference_words INTEGER,
        reference_chars INTEGER,
        char_errors INTEGER,
        latency_ms INTEGER,
        confidence REAL,
        audio_id TEXT,
        PRIMARY KEY (evaluation_id, text_index, speaker_index, condition_index, provider_index)
      ) WITHOUT ROWID;
    `);
  },
};
