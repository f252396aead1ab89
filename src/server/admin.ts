/**
 * The server as `voxctl admin` uses it: the users service over the data dir's database (or the shared
 * PostgreSQL of `--database-url`), no HTTP. The CLI
 * loads this module lazily (client commands never pay for SQLite); with `start.ts` it is the CLI's only
 * way into src/server (eslint.config.js).
 */
export { createUserWithKey, listUsersForAdmin, setAccountDisabled, validateNewUser } from './features/accounts/users.js';
export { revokeKeyAsOperator } from './features/accounts/keys.js';
export { openDatabase, openSqliteDatabase, inspectDatabaseSchema, migrateDatabase } from './storage/db.js';
export { backupDataDir, restoreDataDir } from './storage/backup.js';
