/**
 * The server as `voxctl admin` uses it: the users service over the data dir's database, no HTTP. The CLI
 * loads this module lazily (client commands never pay for SQLite); with `start.ts` it is the CLI's only
 * way into src/server (eslint.config.js).
 */
export { createUserWithKey, validateNewUser } from './services/users.js';
export { openSqliteDatabase } from './storage/db.js';
