import type { SqlMigration } from './types.js';

/**
 * Streaming evaluations (DESIGN §13.2): an evaluation records its `mode` (`batch`, the default every
 * earlier evaluation had, or `streaming`) and the `pace` its audio was streamed at (null in batch mode);
 * each utterance of a streaming evaluation keeps what the stream measured. The columns are null for a
 * batch utterance, so batch views and summaries are unchanged.
 */
export const streamingEvaluationsMigration: SqlMigration = {
  name: 'streaming-evaluations',
  sqlite: `
    ALTER TABLE evaluations ADD COLUMN mode TEXT NOT NULL DEFAULT 'batch';
    ALTER TABLE evaluations ADD COLUMN pace REAL;
    ALTER TABLE evaluation_utterances ADD COLUMN first_partial_ms INTEGER;
    ALTER TABLE evaluation_utterances ADD COLUMN final_latency_ms INTEGER;
    ALTER TABLE evaluation_utterances ADD COLUMN revisions INTEGER;
    ALTER TABLE evaluation_utterances ADD COLUMN early_words INTEGER;
  `,
  postgres: `
    ALTER TABLE evaluations ADD COLUMN mode TEXT NOT NULL DEFAULT 'batch';
    ALTER TABLE evaluations ADD COLUMN pace DOUBLE PRECISION;
    ALTER TABLE evaluation_utterances ADD COLUMN first_partial_ms INTEGER;
    ALTER TABLE evaluation_utterances ADD COLUMN final_latency_ms INTEGER;
    ALTER TABLE evaluation_utterances ADD COLUMN revisions INTEGER;
    ALTER TABLE evaluation_utterances ADD COLUMN early_words INTEGER;
  `,
};
