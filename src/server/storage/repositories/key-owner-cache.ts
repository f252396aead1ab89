import type { Db } from '../db.js';
import type { KeyOwnerRow } from './api-keys.js';
import { prepared } from './prepared.js';

/**
 * Key lookups of the request hot path, remembered per database handle. A lookup joined two tables on
 * every request (~17% of the server's time on `GET /v1/users/me` under load); this keeps only rows of
 * active keys and is kept exact rather than timed: the repository functions that revoke a key or change
 * a tier drop the entries they touch on this connection, and a commit by any other connection (the admin
 * CLI, a second process) empties the whole cache — SQLite's `data_version` moves exactly then. Reading it
 * costs ~3 µs (as much as a third of the lookup), so it is read once per event-loop turn: every request of
 * a turn was received after the turn began, so a write that finished before a request was sent is seen.
 */
interface Cache {
  dataVersion: number;
  /** `data_version` was read in the current event-loop turn. */
  checked: boolean;
  byHash: Map<string, KeyOwnerRow>;
}

/** Enough for every key of a large deployment; past it the oldest entry makes room. */
const MAX_ENTRIES = 10_000;
const caches = new WeakMap<Db, Cache>();

function cacheOf(db: Db): Cache {
  let cache = caches.get(db);
  if (cache?.checked) return cache;
  const dataVersion = prepared(db, 'PRAGMA data_version').pluck().get() as number;
  if (!cache) {
    cache = { dataVersion, checked: false, byHash: new Map() };
    caches.set(db, cache);
  } else if (cache.dataVersion !== dataVersion) {
    cache.dataVersion = dataVersion;
    cache.byHash.clear();
  }
  const turn = cache;
  turn.checked = true;
  setImmediate(() => {
    turn.checked = false;
  }).unref();
  return cache;
}

/** The remembered row of the active key with `keyHash`, else `load()`'s answer (remembered when found). */
export function cachedKeyOwner(db: Db, keyHash: string, load: () => KeyOwnerRow | undefined): KeyOwnerRow | undefined {
  const { byHash } = cacheOf(db);
  const hit = byHash.get(keyHash);
  if (hit) return hit;
  const row = load();
  if (row) {
    if (byHash.size >= MAX_ENTRIES) byHash.delete(byHash.keys().next().value!);
    byHash.set(keyHash, row);
  }
  return row;
}

/** Drops (or updates) the remembered rows `match` selects, after a write on this connection. */
export function updateCachedKeyOwners(db: Db, match: (row: KeyOwnerRow) => boolean, update?: (row: KeyOwnerRow) => void): void {
  const byHash = caches.get(db)?.byHash;
  if (!byHash) return;
  for (const [hash, row] of byHash) {
    if (!match(row)) continue;
    if (update) update(row);
    else byHash.delete(hash);
  }
}
