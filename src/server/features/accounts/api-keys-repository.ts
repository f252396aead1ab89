import type { Db } from '../../storage/db.js';
import type { KeyScope, Tier } from '../../../shared/schemas/users.js';
import { ROW_CACHES, cachedRow, cachedRowNow, updateCachedRows } from '../../storage/repositories/row-cache.js';

const KEY_OWNERS = ROW_CACHES.keyOwners;

/** A row of `api_keys` (the key itself is never stored, only its SHA-256). */
export interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** What authentication needs about a key, read in one indexed lookup joined with its user. */
export interface KeyOwnerRow {
  id: string;
  user_id: string;
  scope: KeyScope;
  key_hash: string;
  last_used_at: string | null;
  subscription_tier: Tier;
}

/** Inserts a key row. */
export async function insertApiKey(db: Db, row: Omit<ApiKeyRow, 'last_used_at' | 'revoked_at'>): Promise<void> {
  await db.run(
    `INSERT INTO api_keys (id, user_id, name, scope, prefix, key_hash, created_at)
     VALUES (@id, @user_id, @name, @scope, @prefix, @key_hash, @created_at)`,
    row,
  );
}

/** SQL of the key lookups, exported so the query-plan tests check what production runs. */
export const API_KEY_SQL = {
  /** The hot path: one active key by hash, with its owner's tier. */
  byHash: `SELECT k.id, k.user_id, k.scope, k.key_hash, k.last_used_at, u.subscription_tier
       FROM api_keys k JOIN users u ON u.id = k.user_id
       WHERE k.key_hash = ? AND k.revoked_at IS NULL AND u.disabled_at IS NULL`,
  /** One page of a user's active keys, newest first (`userId, limit, offset`). */
  pageByUser: `SELECT * FROM api_keys WHERE user_id = ? AND revoked_at IS NULL
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
} as const;

/** The active (not revoked) key with `keyHash` and its owner's tier: the hot path of every request (cached). */
export function findActiveKeyByHash(db: Db, keyHash: string): Promise<KeyOwnerRow | undefined> {
  return cachedRow(db, KEY_OWNERS, keyHash, () => db.get<KeyOwnerRow>(API_KEY_SQL.byHash, [keyHash]));
}

/** `findActiveKeyByHash`'s answer when it is remembered and current now (no promise), else undefined. */
export function findActiveKeyByHashNow(db: Db, keyHash: string): KeyOwnerRow | undefined {
  return cachedRowNow<KeyOwnerRow>(db, KEY_OWNERS, keyHash);
}

/** The user's active key `id`, if it exists and belongs to them. */
export function findActiveKey(db: Db, userId: string, id: string): Promise<ApiKeyRow | undefined> {
  return db.get<ApiKeyRow>('SELECT * FROM api_keys WHERE id = ? AND user_id = ? AND revoked_at IS NULL', [id, userId]);
}

/** One page of the user's active keys, newest first, and how many there are. */
export async function listActiveKeys(db: Db, userId: string, page: { limit: number; offset: number }): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const rows = await db.all<ApiKeyRow>(API_KEY_SQL.pageByUser, [userId, page.limit, page.offset]);
  const total = await db.value<number>('SELECT count(*) AS n FROM api_keys WHERE user_id = ? AND revoked_at IS NULL', [userId]);
  return { rows, total: Number(total ?? 0) };
}

/** Number of the user's active full-scope keys. */
export async function countActiveFullKeys(db: Db, userId: string): Promise<number> {
  const n = await db.value<number>("SELECT count(*) AS n FROM api_keys WHERE user_id = ? AND scope = 'full' AND revoked_at IS NULL", [userId]);
  return Number(n ?? 0);
}

/** A key by id whatever its owner (the operator's `admin keys revoke`), revoked or not. */
export function findApiKeyById(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return db.get<ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?', [id]);
}

/** Marks a key revoked; it stops authenticating at once (its cached lookup goes with it). */
export async function revokeApiKey(db: Db, id: string, at: string): Promise<void> {
  await db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [at, id]);
  updateCachedRows<KeyOwnerRow>(db, KEY_OWNERS, (row) => row.id === id);
}

/** Records when a key was last used. */
export async function touchApiKey(db: Db, id: string, at: string): Promise<void> {
  await db.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [at, id]);
  updateCachedRows<KeyOwnerRow>(
    db,
    KEY_OWNERS,
    (row) => row.id === id,
    (row) => {
      row.last_used_at = at;
    },
  );
}
