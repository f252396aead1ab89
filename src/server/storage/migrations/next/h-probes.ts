import type { SqlMigration } from './types.js';

/**
 * Probes of an evaluation (DESIGN §12): `probes` keeps the request's probes as given (JSON), so a rerun
 * and a resumed run hear the same. A text of the evaluation may be a non-speech clip (`kind`, reference
 * "") or an entity sentence (`entity_type`, `entity_value`: what must come back). An utterance of an
 * evaluation with keyterms keeps the second, boosted pass beside the first (`boosted_*`).
 */
export const probesMigration: SqlMigration = {
  name: 'probes',
  sqlite: `
    ALTER TABLE evaluations ADD COLUMN probes TEXT;
    ALTER TABLE evaluation_texts ADD COLUMN kind TEXT;
    ALTER TABLE evaluation_texts ADD COLUMN entity_type TEXT;
    ALTER TABLE evaluation_texts ADD COLUMN entity_value TEXT;
    ALTER TABLE evaluation_utterances ADD COLUMN boosted_transcript TEXT;
    ALTER TABLE evaluation_utterances ADD COLUMN boosted_error TEXT;
  `,
  postgres: `
    ALTER TABLE evaluations ADD COLUMN probes TEXT;
    ALTER TABLE evaluation_texts ADD COLUMN kind TEXT;
    ALTER TABLE evaluation_texts ADD COLUMN entity_type TEXT;
    ALTER TABLE evaluation_texts ADD COLUMN entity_value TEXT;
    ALTER TABLE evaluation_utterances ADD COLUMN boosted_transcript TEXT;
    ALTER TABLE evaluation_utterances ADD COLUMN boosted_error TEXT;
  `,
};
