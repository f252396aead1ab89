import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import { findUserByEmail, findUserById, findUserByIdNow, insertUser, listUsers, setUserDisabled, type UserRow } from './users-repository.js';
import type { CreatedKey, Tier, User } from '../../../shared/schemas/users.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import { isTier } from './tiers.js';
import { newApiKey, storeApiKey } from './keys.js';

// Local part @ domain, no white space; `admin@localhost` is a valid address on a self-hosted service.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

/** Checks a new user's fields; returns the normalised values or throws 400 naming the offending field. */
export function validateNewUser(input: { email: string; name?: string; tier?: string }): { email: string; name: string | null; tier: Tier } {
  const email = input.email.trim();
  if (!EMAIL_PATTERN.test(email) || email.length > 254 || /[\p{Cc}\p{Cs}]/u.test(email)) {
    throw validationFailed(`Invalid email: '${input.email}'`);
  }
  const tier = input.tier ?? 'free';
  if (!isTier(tier)) throw validationFailed(`Invalid tier: '${tier}' (expected free, starter, pro or enterprise)`);
  const name = input.name?.trim() || null;
  if (name !== null && ([...name].length > 200 || /[\p{Cc}\p{Cs}]/u.test(name))) {
    throw validationFailed('Invalid name: at most 200 characters, no control characters');
  }
  return { email, name, tier };
}

/** Creates a user and its first full-scope key in one transaction; the key is returned only here. */
export async function createUserWithKey(
  db: Db,
  input: { email: string; name?: string; tier?: string; now: Date; key?: string },
): Promise<{ user: User; key: CreatedKey }> {
  const { email, name, tier } = validateNewUser(input);
  // Ids and the key are drawn before the transaction: its body may run again (PostgreSQL retries).
  const row = {
    id: `usr_${randomBytes(12).toString('hex')}`,
    email,
    name,
    subscription_tier: tier,
    created_at: input.now.toISOString(),
  };
  const key = newApiKey({ userId: row.id, name: 'default', scope: 'full', now: input.now, key: input.key });
  return db.transaction(async () => {
    if (await findUserByEmail(db, email)) throw new DomainError('already_exists', `A user with email '${email}' already exists`);
    await insertUser(db, row);
    return { user: toUser({ ...row, subscription_status: 'active', cancel_at_period_end: 0 }), key: await storeApiKey(db, key) };
  });
}

/** The API shape of a user row (`name` omitted when unset). */
export function toUser(row: UserRow): User {
  const user: User = { id: row.id, email: row.email, subscription_tier: row.subscription_tier, created_at: row.created_at };
  if (row.name !== null) user.name = row.name;
  return user;
}

const found = (row: UserRow | undefined): UserRow => {
  if (!row) throw new DomainError('user_not_found', 'User not found');
  return row;
};

/** The user `userId` or 404 (a key whose user vanished); without a promise when the row is remembered and current. */
export function getUser(db: Db, userId: string): UserRow | Promise<UserRow> {
  return findUserByIdNow(db, userId) ?? findUserById(db, userId).then(found);
}

/** Throws 403 `Subscription is cancelled` unless the user's subscription is active (synthesis, batch, datasets). */
export async function assertActiveSubscription(db: Db, userId: string): Promise<void> {
  const row = await findUserById(db, userId);
  if (!row || row.subscription_status !== 'active') throw new DomainError('subscription_cancelled', 'Subscription is cancelled');
}

/** A user as the operator sees it (`voxctl admin users list`): the account and whether it is disabled. */
export interface AdminUser {
  id: string;
  email: string;
  name: string | null;
  subscription_tier: Tier;
  subscription_status: 'active' | 'cancelled';
  created_at: string;
  disabled: boolean;
  disabled_at: string | null;
}

const toAdminUser = (row: UserRow): AdminUser => ({
  id: row.id,
  email: row.email,
  name: row.name,
  subscription_tier: row.subscription_tier,
  subscription_status: row.subscription_status,
  created_at: row.created_at,
  disabled: Boolean(row.disabled_at),
  disabled_at: row.disabled_at ?? null,
});

/** One page of every account, oldest first. */
export async function listUsersForAdmin(db: Db, page: { limit: number; offset: number }): Promise<{ items: AdminUser[]; total: number }> {
  const { rows, total } = await listUsers(db, page);
  return { items: rows.map(toAdminUser), total };
}

/**
 * Disables or enables the account named by id (`usr_…`) or e-mail: a disabled account's keys answer 401
 * like unknown ones until it is enabled again; its data stays. Doing it twice changes nothing.
 */
export async function setAccountDisabled(db: Db, opts: { user: string; disabled: boolean; now: Date }): Promise<AdminUser> {
  return db.transaction(async () => {
    const row = opts.user.startsWith('usr_') ? await findUserById(db, opts.user) : await findUserByEmail(db, opts.user);
    if (!row) throw new DomainError('user_not_found', `User not found: ${opts.user}`);
    const at = opts.disabled ? (row.disabled_at ?? opts.now.toISOString()) : null;
    if ((row.disabled_at ?? null) !== at) await setUserDisabled(db, row.id, at);
    return toAdminUser({ ...row, disabled_at: at });
  });
}
