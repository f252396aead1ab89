import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import {
  countActiveFullKeys,
  findActiveKey,
  findActiveKeyByHash,
  findActiveKeyByHashNow,
  insertApiKey,
  listActiveKeys,
  findApiKeyById,
  revokeApiKey,
  touchApiKey,
  type ApiKeyRow,
  type KeyOwnerRow,
} from './api-keys-repository.js';
import type { ApiKeyInfo, ApiKeyPage, CreatedKey, KeyScope, Tier } from '../../../shared/schemas/users.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';

/** `vox_` + 40 url-safe characters (DESIGN §4.15). */
export const API_KEY_PATTERN = /^vox_[A-Za-z0-9_-]{40}$/;

/** Who is calling, as established from a valid key. */
export interface KeyIdentity {
  userId: string;
  keyId: string;
  scope: KeyScope;
  tier: Tier;
}

// last_used_at is informative: writing it at most once a minute keeps the hot path read-only.
const TOUCH_INTERVAL_MS = 60_000;

/** A new secret key from the CSPRNG: 30 random bytes are exactly 40 base64url characters. */
export function generateApiKey(): string {
  return `vox_${randomBytes(30).toString('base64url')}`;
}

/** SHA-256 hex of a key: the only form in which keys are stored (one-shot `hash`: a fraction of a Hash object's cost, on every request). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

const newKeyId = () => `key_${randomBytes(12).toString('hex')}`;

/** A key about to be stored: its row and the secret, shown once. */
export interface NewApiKey {
  row: Omit<ApiKeyRow, 'last_used_at' | 'revoked_at'>;
  key: string;
}

/**
 * Validates and draws a key for `userId` (random unless `key` is given, e.g. the bootstrap key) without
 * storing it: random values are drawn outside a transaction, whose body may run again.
 */
export function newApiKey(opts: { userId: string; name?: string; scope?: KeyScope; now: Date; key?: string }): NewApiKey {
  const key = opts.key ?? generateApiKey();
  if (!API_KEY_PATTERN.test(key)) throw validationFailed('API key must be vox_ followed by 40 url-safe characters');
  const name = opts.name === undefined ? 'default' : validateKeyName(opts.name);
  const row = {
    id: newKeyId(),
    user_id: opts.userId,
    name,
    scope: opts.scope ?? 'full',
    prefix: key.slice(0, 8),
    key_hash: hashApiKey(key),
    created_at: opts.now.toISOString(),
  };
  return { row, key };
}

/** Stores a key made by `newApiKey` and returns what the caller is shown (409 when the key already exists). */
export async function storeApiKey(db: Db, { row, key }: NewApiKey): Promise<CreatedKey> {
  try {
    await insertApiKey(db, row);
  } catch (err) {
    const code = (err as { code?: string }).code;
    // SQLite's and PostgreSQL's (23505) unique violation.
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505') throw new DomainError('already_exists', 'API key already exists', { cause: err });
    throw err;
  }
  return { id: row.id, name: row.name, scope: row.scope, key, created_at: row.created_at };
}

/** Stores a key for `userId` (random unless `key` is given, e.g. the bootstrap key) and returns it once. */
export function createApiKey(
  db: Db,
  opts: { userId: string; name?: string; scope?: KeyScope; now: Date; key?: string },
): Promise<CreatedKey> {
  return storeApiKey(db, newApiKey(opts));
}

/** Key names are 1..100 characters of well-formed text without control characters. */
function validateKeyName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw validationFailed('Key name must not be empty');
  if ([...trimmed].length > 100) throw validationFailed('Key name exceeds maximum length of 100 characters');
  // Lone surrogates (\p{Cs} in u-mode) and control characters (NUL included) have no place in a label.
  if (/[\p{Cs}\p{Cc}]/u.test(trimmed)) throw validationFailed('Key name contains invalid characters');
  return trimmed;
}

/** True when the key's `last_used_at` is due to be written (at most once a minute). */
const touchDue = (row: KeyOwnerRow, now: Date): boolean =>
  row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= TOUCH_INTERVAL_MS;

/** The identity a row found by `hash` proves. The index found it by equality; compared again in constant time so no early-exit compare decides. */
function identityOf(row: KeyOwnerRow, hash: string): KeyIdentity | undefined {
  if (!timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  return { userId: row.user_id, keyId: row.id, scope: row.scope, tier: row.subscription_tier };
}

async function lookUpKey(db: Db, hash: string, now: Date): Promise<KeyIdentity | undefined> {
  const row = await findActiveKeyByHash(db, hash);
  const identity = row && identityOf(row, hash);
  if (row && identity && touchDue(row, now)) await touchApiKey(db, row.id, now.toISOString());
  return identity;
}

/**
 * The identity behind `key`, or undefined when it is malformed, unknown or revoked. Answers without a
 * promise when the key's row is remembered and current and its last use needs no writing — most requests
 * under load, where a promise and the turn it waits for are a sizable share of a small route's cost.
 */
export function authenticateApiKey(db: Db, key: string, now: Date): KeyIdentity | undefined | Promise<KeyIdentity | undefined> {
  if (!API_KEY_PATTERN.test(key)) return undefined;
  const hash = hashApiKey(key);
  const known = findActiveKeyByHashNow(db, hash);
  if (known && !touchDue(known, now)) return identityOf(known, hash);
  return lookUpKey(db, hash, now);
}

const toInfo = (row: ApiKeyRow): ApiKeyInfo => ({
  id: row.id,
  name: row.name,
  scope: row.scope,
  prefix: row.prefix,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
});

/** One page of the user's active keys (revoked keys are gone for good). */
export async function listApiKeys(db: Db, userId: string, page: { limit: number; offset: number }): Promise<ApiKeyPage> {
  const { rows, total } = await listActiveKeys(db, userId, page);
  return { items: rows.map(toInfo), total, limit: page.limit, offset: page.offset, has_more: page.offset + rows.length < total };
}

/** Revokes the user's key `keyId`; the calling key cannot remove itself when it is the last full one. */
export async function deleteApiKey(db: Db, opts: { userId: string; keyId: string; callerKeyId: string; now: Date }): Promise<void> {
  await db.transaction(async () => {
    const row = await findActiveKey(db, opts.userId, opts.keyId);
    if (!row) throw new DomainError('key_not_found', 'Key not found');
    if (row.id === opts.callerKeyId && row.scope === 'full' && (await countActiveFullKeys(db, opts.userId)) <= 1) {
      throw validationFailed('Cannot delete the last full-scope API key');
    }
    await revokeApiKey(db, row.id, opts.now.toISOString());
  });
}

/**
 * Revokes any user's key by id (the operator's `voxctl admin keys revoke`): it stops authenticating at
 * once, on every instance. A key revoked already keeps its first revocation time.
 */
export async function revokeKeyAsOperator(db: Db, opts: { keyId: string; now: Date }): Promise<{ id: string; user_id: string; revoked_at: string }> {
  return db.transaction(async () => {
    const row = await findApiKeyById(db, opts.keyId);
    if (!row) throw new DomainError('key_not_found', `Key not found: ${opts.keyId}`);
    if (row.revoked_at) return { id: row.id, user_id: row.user_id, revoked_at: row.revoked_at };
    const at = opts.now.toISOString();
    await revokeApiKey(db, row.id, at);
    return { id: row.id, user_id: row.user_id, revoked_at: at };
  });
}
