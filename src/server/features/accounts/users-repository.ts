import type { Db } from '../../storage/db.js';
import type { Tier } from '../../../shared/schemas/users.js';
import { ROW_CACHES, cachedRow, cachedRowNow, updateCachedRows } from '../../storage/repositories/row-cache.js';

const USERS = ROW_CACHES.users;

/** A row of `users`. */
export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  subscription_tier: Tier;
  subscription_status: 'active' | 'cancelled';
  cancel_at_period_end: number;
  created_at: string;
  /** When an operator disabled the account (its keys stop working); null while enabled. */
  disabled_at?: string | null;
}

/** Inserts a user (throws on a duplicate email: the unique index is case-insensitive). */
export async function insertUser(db: Db, user: Pick<UserRow, 'id' | 'email' | 'name' | 'subscription_tier' | 'created_at'>): Promise<void> {
  await db.run(
    `INSERT INTO users (id, email, name, subscription_tier, subscription_status, cancel_at_period_end, created_at)
     VALUES (@id, @email, @name, @subscription_tier, 'active', 0, @created_at)`,
    { ...user },
  );
}

/** The user with `id`, if any (cached: the row is shared, never mutate it). */
export function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return cachedRow(db, USERS, id, () => db.get<UserRow>('SELECT * FROM users WHERE id = ?', [id]));
}

/** `findUserById`'s answer when it is remembered and current now (no promise), else undefined. */
export function findUserByIdNow(db: Db, id: string): UserRow | undefined {
  return cachedRowNow<UserRow>(db, USERS, id);
}

/** The lookup by e-mail, exported for the query-plan test. */
/** The e-mail lookup per dialect, each matching its unique index (SQLite: NOCASE; PostgreSQL: lower(email)). */
export const USER_BY_EMAIL_SQL = {
  sqlite: 'SELECT * FROM users WHERE email = ? COLLATE NOCASE',
  postgres: 'SELECT * FROM users WHERE lower(email) = lower(?)',
} as const;

/** The user with this e-mail, compared without regard to case (Admin@x and admin@x are one person). */
export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.get<UserRow>(USER_BY_EMAIL_SQL[db.dialect], [email]);
}

/** Number of users (bootstrap runs only on an empty table). */
export async function countUsers(db: Db): Promise<number> {
  return Number((await db.value<number>('SELECT count(*) AS n FROM users')) ?? 0);
}

/** Changes a user's tier (billing portal; takes effect on the next request, cached key lookups included). */
export async function updateUserTier(db: Db, id: string, tier: Tier): Promise<void> {
  await db.run('UPDATE users SET subscription_tier = ? WHERE id = ?', [tier, id]);
  updateCachedRows<{ user_id: string }>(db, ROW_CACHES.keyOwners, (row) => row.user_id === id);
  updateCachedRows<UserRow>(db, USERS, (row) => row.id === id);
}

/** Sets the subscription status and the cancel-at-period-end flag. */
export async function updateUserSubscription(
  db: Db,
  id: string,
  change: { status: 'active' | 'cancelled'; cancelAtPeriodEnd: boolean },
): Promise<void> {
  await db.run('UPDATE users SET subscription_status = ?, cancel_at_period_end = ? WHERE id = ?', [
    change.status,
    change.cancelAtPeriodEnd ? 1 : 0,
    id,
  ]);
  updateCachedRows<UserRow>(db, USERS, (row) => row.id === id);
}

/** One page of every user, oldest first (the operator's view), and how many there are. */
export async function listUsers(db: Db, page: { limit: number; offset: number }): Promise<{ rows: UserRow[]; total: number }> {
  const rows = await db.all<UserRow>('SELECT * FROM users ORDER BY created_at, id LIMIT ? OFFSET ?', [page.limit, page.offset]);
  return { rows, total: await countUsers(db) };
}

/** Disables (`at`) or enables (null) an account; its keys stop or start authenticating on the next request. */
export async function setUserDisabled(db: Db, id: string, at: string | null): Promise<void> {
  await db.run('UPDATE users SET disabled_at = ? WHERE id = ?', [at, id]);
  updateCachedRows<{ user_id: string }>(db, ROW_CACHES.keyOwners, (row) => row.user_id === id);
  updateCachedRows<UserRow>(db, USERS, (row) => row.id === id);
}
