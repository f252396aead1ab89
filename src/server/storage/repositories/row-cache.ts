import type { Db } from '../db.js';

/**
 * Rows read on the request hot path (the key behind a Bearer token, the caller's user), remembered per
 * database handle. Looking them up was ~17% (key join) and ~7% (user) of the server's time on
 * `GET /v1/users/me` under load. The caches are exact, not timed: the repository functions that change a
 * cached row drop or update it on this connection, and a commit by any other connection (the admin CLI,
 * a second process) empties every cache of the handle — SQLite's `data_version` moves exactly then.
 * Reading it costs ~3 µs (a third of a key lookup), so it is read once per event-loop turn: every
 * request handled in a turn was received after the turn began, so a write that finished before a
 * request was sent is always seen. Only SQLite has `data_version`: on any other dialect nothing is cached
 * (several processes write the same rows there; invalidation is designed with that backend).
 */
interface Caches {
  dataVersion: number;
  /** `data_version` was read in the current event-loop turn. */
  checked: boolean;
  /** Bumped by every change made on this handle: a load that a change overlapped must not be remembered. */
  changes: number;
  byName: Map<string, Map<string, object>>;
}

/** Names of the row caches (a repository that changes a row of another's cache drops it there too). */
export const ROW_CACHES = { keyOwners: 'key-owners', users: 'users' } as const;

/** Enough for every key and user of a large deployment; past it the oldest entry makes room. */
const MAX_ENTRIES = 10_000;
const handles = new WeakMap<Db, Caches>();

async function cachesOf(db: Db): Promise<Caches> {
  const known = handles.get(db);
  if (known?.checked) return known;
  const dataVersion = Number(await db.value<number>('PRAGMA data_version'));
  // Another call may have created or checked the caches while this one awaited.
  let caches = handles.get(db);
  if (!caches) {
    caches = { dataVersion, checked: false, changes: 0, byName: new Map() };
    handles.set(db, caches);
  } else if (caches.dataVersion !== dataVersion) {
    caches.dataVersion = dataVersion;
    caches.changes++;
    for (const rows of caches.byName.values()) rows.clear();
  }
  if (!caches.checked) {
    const turn = caches;
    turn.checked = true;
    setImmediate(() => {
      turn.checked = false;
    }).unref();
  }
  return caches;
}

/** The remembered row `key` of cache `name`, else `load()`'s answer (remembered when found). Callers must not mutate it. */
export async function cachedRow<T extends object>(db: Db, name: string, key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
  if (db.dialect !== 'sqlite') return load();
  const caches = await cachesOf(db);
  let rows = caches.byName.get(name);
  if (!rows) {
    rows = new Map();
    caches.byName.set(name, rows);
  }
  const hit = rows.get(key);
  if (hit) return hit as T;
  const changesBefore = caches.changes;
  const row = await load();
  // A row read inside a transaction may be rolled back with it: remember only committed state. A change
  // made while the row was loading may postdate what was read.
  if (row && !db.inTransaction() && caches.changes === changesBefore) {
    if (rows.size >= MAX_ENTRIES) rows.delete(rows.keys().next().value!);
    rows.set(key, row);
  }
  return row;
}

/** After a write on this connection: drops the remembered rows of cache `name` that `match` selects, or updates them in place. */
export function updateCachedRows<T extends object>(db: Db, name: string, match: (row: T) => boolean, update?: (row: T) => void): void {
  const caches = handles.get(db);
  if (!caches) return;
  caches.changes++;
  const rows = caches.byName.get(name) as Map<string, T> | undefined;
  if (!rows) return;
  for (const [key, row] of rows) {
    if (!match(row)) continue;
    if (update) update(row);
    else rows.delete(key);
  }
}
