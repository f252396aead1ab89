import type { SqlMigration } from './types.js';

/**
 * An operator can disable an account (DESIGN §14.8, `voxctl admin users disable`): its keys stop
 * authenticating until it is enabled again; nothing of it is deleted. The same SQL on both dialects; on
 * PostgreSQL the existing `users` trigger bumps the row-cache epoch, so every instance sees it at once.
 */
export const userDisabledMigration: SqlMigration = {
  name: 'user-disabled',
  sqlite: `ALTER TABLE users ADD COLUMN disabled_at TEXT;`,
  postgres: `ALTER TABLE users ADD COLUMN disabled_at TEXT;`,
};
