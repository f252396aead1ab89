import type { SqlMigration } from './types.js';

/**
 * `engine` becomes a speaker filter (DESIGN §4.5): like the other filters it is an index lookup. Its
 * values are lower-case by construction (CHECK engine IN ('flite', 'espeak')), so the column itself is
 * the comparison key and no `engine_key` column is needed.
 */
export const speakersEngineIndexMigration: SqlMigration = {
  name: 'speakers-engine-index',
  sqlite: `CREATE INDEX speakers_engine ON speakers (engine);`,
  postgres: `CREATE INDEX speakers_engine ON speakers (engine);`,
};
