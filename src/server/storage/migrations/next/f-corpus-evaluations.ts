import type { SqlMigration } from './types.js';

/**
 * Evaluations on a recorded corpus (DESIGN §10.5). `corpus_id` names the source (null for synthesised
 * speech) and lets a corpus deletion see a running evaluation; `corpus_name` keeps the report's setup
 * readable after the corpus is gone. `evaluation_corpus_items` fixes, at creation, which corpus
 * utterance each text index is (the seeded sample), the corpus speaker (null when the corpus has none)
 * and the decoded audio the runner degrades — so a resumed run hears exactly the same recordings.
 */
export const corpusEvaluationsMigration: SqlMigration = {
  name: 'corpus-evaluations',
  sqlite: `
    ALTER TABLE evaluations ADD COLUMN corpus_id TEXT;
    ALTER TABLE evaluations ADD COLUMN corpus_name TEXT;
    CREATE INDEX evaluations_corpus ON evaluations (corpus_id, status);
    CREATE TABLE evaluation_corpus_items (
      evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      utterance_id TEXT NOT NULL,
      speaker TEXT,
      audio_id TEXT NOT NULL,
      PRIMARY KEY (evaluation_id, idx)
    ) STRICT, WITHOUT ROWID;
  `,
  postgres: `
    ALTER TABLE evaluations ADD COLUMN corpus_id TEXT;
    ALTER TABLE evaluations ADD COLUMN corpus_name TEXT;
    CREATE INDEX evaluations_corpus ON evaluations (corpus_id, status);
    CREATE TABLE evaluation_corpus_items (
      evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      utterance_id TEXT NOT NULL,
      speaker TEXT,
      audio_id TEXT NOT NULL,
      PRIMARY KEY (evaluation_id, idx)
    );
  `,
};
