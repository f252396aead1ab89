import type { Db } from '../db.js';
import { prepared } from './prepared.js';

/**
 * Rows read on the request hot path (the key behind a Bearer token, the caller's user), remembered per
 * database handle. Looking them up was ~17% (key join) and ~7% (user) of the server's time on
 * `GET /v1/users/me` under load. The caches are exact, not timed: the repository functions that change a
 * cached row drop or update it on this connection, and a commit by any other connection (the admin CLI,
 * a second process) empties every cache of the handle — SQLite's `data_version` moves exactly then.
 * Reading it costs ~3 µs (a third of a key lookup), so it is read once per event-loop turn: every
 * request handled in a turn was received after the turn began, so a write that finished before a
 * request was sent is always seen.
 */
interface Caches {
  dataVersion: number;
  /** `data_version` was read in the current event-loop turn. */
  checked: boolean;
  byName: Map<string, Map<string, object>>;
}

/** Names of the row caches (a repository that changes a row of another's cache drops it there too). */
export const ROW_CACHES = { keyOwners: 'key-owners', users: 'users' } as const;

/** Enough for every key and user of a large deployment; past it the oldest entry makes room. */
const MAX_ENTRIES = 10_000;
const handles = new WeakMap<Db, Caches>();

function cachesOf(db: Db): Caches {
  let caches = handles.get(db);
  if (caches?.checked) return caches;
  const dataVersion = prepared(db, 'PRAGMA data_version').pluck().get() as number;
  if (!caches) {
    caches = { dataVersion, checked: false, byName: new Map() };
    handles.set(db, caches);
  } else if (caches.dataVersion !== dataVersion) {
    caches.dataVersion = dataVersion;
    for (const rows of caches.byName.values()) rows.clear();
  }
  const turn = caches;
  turn.checked = true;
  setImmediate(() => {
    turn.checked = false;
  }).unref();
  return caches;
}

/** The remembered row `key` of cache `name`, else `load()`'s answer (remembered when found). Callers must not mutate it. */
export function cachedRow<T extends object>(db: Db, name: string, key: string, load: () => T | undefined): T | undefined {
  const { byName } = cachesOf(db);
  let rows = byName.get(name);
  if (!rows) {
    rows = new Map();
    byName.set(name, rows);
  }
  const hit = rows.get(key);
  if (hit) return hit as T;
  const row = load();
  // A row read inside a transaction may be rolled back with it: remember only committed state.
  if (row && !db.inTransaction) {
    if (rows.size >= MAX_ENTRIES) rows.delete(rows.keys().next().value!);
    rows.set(key, row);
  }
  return row;
}

/** After a write on this connection: drops the remembered rows of cache `name` that `match` selects, or updates them in place. */
export function updateCachedRows<T extends object>(db: Db, name: string, match: (row: T) => boolean, update?: (row: T) => void): void {
  const rows = handles.get(db)?.byName.get(name) as Map<string, T> | undefined;
  if (!rows) return;
  for (const [key, row] of rows) {
    if (!match(row)) continue;
    if (update) update(row);
    else rows.delete(key);
  }
}
