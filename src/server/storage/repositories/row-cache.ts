import type { Db } from '../db.js';

/**
 * Rows read on the request hot path (the key behind a Bearer token, the caller's user), remembered per
 * database handle. Looking them up was ~17% (key join) and ~7% (user) of the server's time on
 * `GET /v1/users/me` under load. The caches are exact, not timed: the repository functions that change a
 * cached row drop or update it on this connection, and a commit by any other connection empties every
 * cache of the handle. The database says when: SQLite's `data_version` moves on another connection's
 * commit; on PostgreSQL triggers bump `cache_epoch` in the same transaction as any change to `users` or to
 * what is cached of `api_keys` (another instance, the admin CLI, an operator's SQL). The version is read
 * once per event-loop turn, by a query issued in that turn: every request handled in the turn was
 * received after the turn began, so a write that finished before a request was sent is always seen.
 * SQLite answers in ~3 µs; on PostgreSQL one round trip per turn replaces two per request.
 */
interface Caches {
  /** The version of the cached tables the cached rows belong to. */
  dataVersion: number;
  /** Bumped by every change made on this handle: a load that a change overlapped must not be remembered. */
  changes: number;
  byName: Map<string, Map<string, object>>;
}

/** Names of the row caches (a repository that changes a row of another's cache drops it there too). */
export const ROW_CACHES = { keyOwners: 'key-owners', users: 'users' } as const;

/** Enough for every key and user of a large deployment; past it the oldest entry makes room. */
const MAX_ENTRIES = 10_000;
const handles = new WeakMap<Db, Caches>();

/** The statement that reads the version of the cached tables, per dialect. */
const VERSION_SQL = { sqlite: 'PRAGMA data_version', postgres: 'SELECT epoch FROM cache_epoch WHERE id = 1' } as const;

/** The read of the version issued in the current event-loop turn, and its answer once it has come. */
interface TurnRead {
  read: Promise<number>;
  version?: number;
}

/** The read of the current event-loop turn, per handle. */
const turnReads = new WeakMap<Db, TurnRead>();

/** This turn's read of the version, issued by the turn's first caller (answered at once on SQLite). */
function turnRead(db: Db): TurnRead {
  let turn = turnReads.get(db);
  if (!turn) {
    const sql = VERSION_SQL[db.dialect];
    const now = db.valueNow?.<number>(sql);
    if (now !== undefined) turn = { read: Promise.resolve(Number(now)), version: Number(now) };
    else {
      const entry: TurnRead = { read: db.value<number>(sql).then(Number) };
      entry.read.then((version) => (entry.version = version), () => undefined);
      turn = entry;
    }
    turnReads.set(db, turn);
    // Requests of a later turn may have been sent after a write this read did not see: they read again.
    setImmediate(() => turnReads.delete(db)).unref();
  }
  return turn;
}

async function cachesOf(db: Db): Promise<Caches> {
  const version = await turnRead(db).read;
  let caches = handles.get(db);
  if (!caches) {
    caches = { dataVersion: version, changes: 0, byName: new Map() };
    handles.set(db, caches);
  } else if (caches.dataVersion !== version) {
    // Reads of earlier turns may settle late: only a version newer than the one applied empties the caches.
    if (version > caches.dataVersion || db.dialect === 'sqlite') {
      caches.dataVersion = version;
      caches.changes++;
      for (const rows of caches.byName.values()) rows.clear();
    }
  }
  return caches;
}

/** The remembered row `key` of cache `name`, else `load()`'s answer (remembered when found). Callers must not mutate it. */
export async function cachedRow<T extends object>(db: Db, name: string, key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
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

/**
 * The remembered row `key` of cache `name` when it is known without waiting: this turn's read of the
 * version has come and the caches are of that version — exactly what `cachedRow` would answer then. Else
 * undefined, and the caller asks `cachedRow` (which also applies a new version). On SQLite the version is
 * read at once. On PostgreSQL the read is a round trip that outlives its turn, so callers take `cachedRow`.
 */
export function cachedRowNow<T extends object>(db: Db, name: string, key: string): T | undefined {
  const { version } = turnRead(db);
  const caches = handles.get(db);
  if (version === undefined || caches === undefined || caches.dataVersion !== version) return undefined;
  return caches.byName.get(name)?.get(key) as T | undefined;
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
