import type { SqlMigration } from './types.js';

/**
 * Whether the release before a migration runs unchanged on its schema (DESIGN §14.13), recorded when it
 * is applied: an instance that finds newer migrations all compatible stays ready. The migrations before
 * this one are recorded as they were written: additions, but for schema-repair, which drops and re-creates
 * objects. From this one on the runner records each migration's own `compatible`.
 */
export const migrationCompatibilityMigration: SqlMigration = {
  name: 'migration-compatibility',
  compatible: true,
  sqlite: `
    ALTER TABLE voxctl_schema_migrations ADD COLUMN compatible INTEGER CHECK (compatible IN (0, 1));
    UPDATE voxctl_schema_migrations SET compatible = CASE WHEN name = 'schema-repair' THEN 0 ELSE 1 END;
  `,
  postgres: `
    ALTER TABLE voxctl_schema_migrations ADD COLUMN compatible BOOLEAN;
    UPDATE voxctl_schema_migrations SET compatible = (name <> 'schema-repair');
  `,
};
