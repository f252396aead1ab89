import { describe, expect, it } from 'vitest';
import { coreDb } from '../../../../helpers/core-db.js';
import { assertActiveSubscription, createUserWithKey, toUser, validateNewUser } from '../../../../../src/server/features/accounts/users.js';
import { findUserById, updateUserSubscription } from '../../../../../src/server/features/accounts/users-repository.js';
import { DomainError } from '../../../../../src/shared/errors.js';

const now = new Date('2025-03-10T12:00:00Z');

describe('users', () => {
  it('creates a user with a full key; name is optional', async () => {
    const db = coreDb();
    const { user, key } = await createUserWithKey(db, { email: ' dev@example.com ', now });
    expect(user).toEqual({ id: expect.stringMatching(/^usr_[0-9a-f]{24}$/), email: 'dev@example.com', subscription_tier: 'free', created_at: now.toISOString() });
    expect(key).toMatchObject({ scope: 'full', name: 'default', id: expect.stringMatching(/^key_/) });
    expect(toUser((await findUserById(db, user.id))!)).toEqual(user);
  });

  it('rejects duplicate emails (any case) with 409 and leaves no half-created user', async () => {
    const db = coreDb();
    await createUserWithKey(db, { email: 'dev@example.com', now });
    await expect(createUserWithKey(db, { email: 'DEV@example.com', now })).rejects.toThrow(DomainError);
    expect(await db.get('SELECT count(*) AS n FROM users')).toEqual({ n: 1 });
    expect(await db.get('SELECT count(*) AS n FROM api_keys')).toEqual({ n: 1 });
  });

  it('validates email, tier and name', () => {
    expect(() => validateNewUser({ email: 'nope' })).toThrow("Invalid email: 'nope'");
    expect(() => validateNewUser({ email: 'a b@c.d' })).toThrow(/Invalid email/);
    expect(() => validateNewUser({ email: 'a@b.c', tier: 'gold' })).toThrow("Invalid tier: 'gold'");
    expect(() => validateNewUser({ email: 'a@b.c', name: 'x\u0007' })).toThrow(/Invalid name/);
    expect(validateNewUser({ email: 'admin@localhost', tier: 'enterprise', name: ' Ada ' })).toEqual({
      email: 'admin@localhost',
      tier: 'enterprise',
      name: 'Ada',
    });
  });

  it('refuses a cancelled subscription with 403', async () => {
    const db = coreDb();
    const { user } = await createUserWithKey(db, { email: 'a@b.c', now });
    await expect(assertActiveSubscription(db, user.id)).resolves.toBeUndefined();
    await updateUserSubscription(db, user.id, { status: 'cancelled', cancelAtPeriodEnd: false });
    await expect(assertActiveSubscription(db, user.id)).rejects.toThrow('Subscription is cancelled');
  });
});
