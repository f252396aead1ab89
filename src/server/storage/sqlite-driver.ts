import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

// Two builds of one driver, same API, each safe on only part of the Node range (measured 2026-11-22):
// better-sqlite3 12 (a V8 addon) aborts Node >= 24.19 from a GC finaliser, and 13 (Node-API, prebuilt
// binaries inside the package, no compiler) segfaults on Node 20. package.json installs both as optional
// dependencies, 13 under the alias below; npm skips 13 on Node 20 because of its `engines`.

/** The npm names of the two drivers: v12 under its own name, v13 under an npm alias. */
export type SqliteDriverName = 'better-sqlite3' | 'better-sqlite3-napi';

/** The constructor both drivers export (better-sqlite3's API, typed by @types/better-sqlite3). */
export type SqliteConstructor = typeof BetterSqlite3;

/** The first Node major on which the Node-API build (better-sqlite3 13) works. */
const NAPI_DRIVER_SINCE_MAJOR = 22;

/** Which driver package is safe on the given Node version (`process.versions.node`, with or without `v`). */
export function sqliteDriverFor(nodeVersion: string): SqliteDriverName {
  const major = Number.parseInt(nodeVersion.replace(/^v/, ''), 10);
  if (!Number.isInteger(major)) throw new TypeError(`Not a Node version: "${nodeVersion}"`);
  return major >= NAPI_DRIVER_SINCE_MAJOR ? 'better-sqlite3-napi' : 'better-sqlite3';
}

const require = createRequire(import.meta.url);

/**
 * Loads the SQLite driver that is safe on the running Node. The only place that loads a driver: everything
 * else takes the `Db` handle from `openDatabase`, or this constructor, so the other build is never loaded.
 * `load` is Node's `require`; tests pass one that fails to see the message.
 */
export function loadSqliteDriver(load: (name: string) => unknown = require): SqliteConstructor {
  const name = sqliteDriverFor(process.versions.node);
  try {
    return load(name) as SqliteConstructor;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    // npm drops an optional dependency it could not install without a word, so say here what to do.
    throw new Error(
      `The SQLite driver for Node ${process.versions.node} (${name}) is not installed. Run \`npm ci\` with this ` +
        'Node version; offline, better-sqlite3 12 (Node 20) compiles from source and needs that Node\'s headers ' +
        '(README, "SQLite driver note").',
      { cause: err },
    );
  }
}
