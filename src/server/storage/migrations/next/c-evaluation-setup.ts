import type { SqlMigration } from './types.js';

/**
 * Evaluations over time (DESIGN §11): what produced each evaluation's numbers (`setup`, JSON), the
 * evaluation it was rerun from or is compared with (`baseline_id`), and each provider's list price per
 * minute at creation (`prices`, JSON `{token: number|null}`), so a summary's cost never changes after
 * the fact. Old evaluations get the setup that is known from their own columns: normaliser, conditions,
 * seed and the provider tokens; the adapter, model, language and voxctl version were not recorded (null).
 * The providers subquery is wrapped in `json()`: SQLite 3.45+ drops the JSON subtype of a scalar subquery's
 * result, so without it the object would be nested as a string (the SQLite of better-sqlite3 13, Node >= 22).
 */
export const evaluationSetupMigration: SqlMigration = {
  name: 'evaluation-setup',
  sqlite: `
    ALTER TABLE evaluations ADD COLUMN setup TEXT;
    ALTER TABLE evaluations ADD COLUMN baseline_id TEXT;
    ALTER TABLE evaluations ADD COLUMN prices TEXT;
    UPDATE evaluations SET setup = json_object(
      'voxctl_version', NULL,
      'normalizer', json_object('name', normalizer, 'version', normalizer_version),
      'providers', json((SELECT json_group_object(p.value, json_object('adapter', NULL, 'model', NULL, 'language', NULL))
                         FROM json_each(evaluations.providers) AS p)),
      'conditions', json(conditions),
      'seed', seed)
    WHERE setup IS NULL;
  `,
  postgres: `
    ALTER TABLE evaluations ADD COLUMN setup TEXT;
    ALTER TABLE evaluations ADD COLUMN baseline_id TEXT;
    ALTER TABLE evaluations ADD COLUMN prices TEXT;
    UPDATE evaluations SET setup = json_build_object(
      'voxctl_version', NULL,
      'normalizer', json_build_object('name', normalizer, 'version', normalizer_version),
      'providers', COALESCE((SELECT json_object_agg(p.token, json_build_object('adapter', NULL, 'model', NULL, 'language', NULL) ORDER BY p.ord)
                             FROM json_array_elements_text(evaluations.providers::json) WITH ORDINALITY AS p(token, ord)), '{}'::json),
      'conditions', evaluations.conditions::json,
      'seed', seed)::text
    WHERE setup IS NULL;
  `,
};
