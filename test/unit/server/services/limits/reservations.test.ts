import { describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../../../../src/server/storage/db.js';
import { createUserWithKey } from '../../../../../src/server/features/accounts/users.js';
import { getCharactersUsed } from '../../../../../src/server/features/limits/usage-repository.js';
import { listReservations } from '../../../../../src/server/features/limits/reservations-repository.js';
import { refundStaleReservations, releaseReservation, reserveDurably, settleReservation } from '../../../../../src/server/features/limits/reservations.js';

describe('durable character reservations', () => {
  const now = new Date('2025-03-10T12:00:00Z');
  const setup = async () => {
    const db = await openSqliteDatabase(':memory:');
    const a = (await createUserWithKey(db, { email: 'a@example.com', tier: 'free', now })).user.id;
    const b = (await createUserWithKey(db, { email: 'b@example.com', tier: 'free', now })).user.id;
    return { db, a, b, used: (id: string) => getCharactersUsed(db, id, '2025-03-01') };
  };

  it('settled keeps the characters; released gives them back; each leaves no reservation', async () => {
    const { db, a, used } = await setup();
    const kept = await reserveDurably(db, { userId: a, characters: 100, now });
    expect(await settleReservation(db, kept, async () => 'stored')).toBe('stored');
    const failed = await reserveDurably(db, { userId: a, characters: 40, now });
    expect(await used(a)).toBe(140);
    await releaseReservation(db, failed);
    await releaseReservation(db, failed); // a second release gives nothing back twice
    expect(await used(a)).toBe(100);
    expect(await listReservations(db)).toEqual([]);
  });

  it('refunds at start exactly what crashed requests still hold, per user and period', async () => {
    const { db, a, b, used } = await setup();
    await settleReservation(db, await reserveDurably(db, { userId: a, characters: 7, now }), async () => undefined);
    await reserveDurably(db, { userId: a, characters: 30, now });
    await reserveDurably(db, { userId: b, characters: 2000, now });
    expect([await used(a), await used(b)]).toEqual([37, 2000]);
    expect(await refundStaleReservations(db)).toEqual({ refunded: 2, characters: 2030 });
    expect([await used(a), await used(b)]).toEqual([7, 0]);
    expect(await refundStaleReservations(db)).toEqual({ refunded: 0, characters: 0 });
  });

  it('records nothing when the quota cannot hold the characters (429)', async () => {
    const { db, a } = await setup();
    await expect(reserveDurably(db, { userId: a, characters: 10_001, now })).rejects.toThrow('Character quota exceeded for this billing period');
    expect(await listReservations(db)).toEqual([]);
  });
});
