import type { Db } from '../db.js';
import type { Tier } from '../../../shared/schemas/users.js';
import { prepared } from './prepared.js';
import { ROW_CACHES, cachedRow, updateCachedRows } from './row-cache.js';

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
}

/** Inserts a user (throws on a duplicate email: the unique index is case-insensitive). */
export function insertUser(db: Db, user: Pick<UserRow, 'id' | 'email' | 'name' | 'subscription_tier' | 'created_at'>): void {
  prepared(
    db,
    `INSERT INTO users (id, email, name, subscription_tier, subscription_status, cancel_at_period_end, created_at)
     VALUES (@id, @email, @name, @subscription_tier, 'active', 0, @created_at)`,
  ).run(user);
}

/** The user with `id`, if any (cached: the row is shared, never mutate it). */
export function findUserById(db: Db, id: string): UserRow | undefined {
  return cachedRow(db, USERS, id, () => prepared(db, 'SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined);
}

/** The lookup by e-mail, exported for the query-plan test. */
export const USER_BY_EMAIL_SQL = 'SELECT * FROM users WHERE email = ? COLLATE NOCASE';

/** The user with `email` (case-insensitive), if any. */
export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return prepared(db, USER_BY_EMAIL_SQL).get(email) as UserRow | undefined;
}

/** Number of users (bootstrap runs only on an empty table). */
export function countUsers(db: Db): number {
  return (prepared(db, 'SELECT count(*) AS n FROM users').get() as { n: number }).n;
}

/** Changes a user's tier (billing portal; takes effect on the next request, cached key lookups included). */
export function updateUserTier(db: Db, id: string, tier: Tier): void {
  prepared(db, 'UPDATE users SET subscription_tier = ? WHERE id = ?').run(tier, id);
  updateCachedRows<{ user_id: string }>(db, ROW_CACHES.keyOwners, (row) => row.user_id === id);
  updateCachedRows<UserRow>(db, USERS, (row) => row.id === id);
}

/** Sets the subscription status and the cancel-at-period-end flag. */
export function updateUserSubscription(
  db: Db,
  id: string,
  change: { status: 'active' | 'cancelled'; cancelAtPeriodEnd: boolean },
): void {
  prepared(db, 'UPDATE users SET subscription_status = ?, cancel_at_period_end = ? WHERE id = ?').run(
    change.status,
    change.cancelAtPeriodEnd ? 1 : 0,
    id,
  );
  updateCachedRows<UserRow>(db, USERS, (row) => row.id === id);
}
