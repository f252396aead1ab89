import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../../src/server/storage/db.js';
import { createUserWithKey } from '../../../../src/server/services/users.js';
import { getCharactersUsed } from '../../../../src/server/storage/repositories/usage.js';
import { listReservations } from '../../../../src/server/storage/repositories/reservations.js';
import { refundStaleReservations, releaseReservation, reserveDurably, settleReservation } from '../../../../src/server/services/reservations.js';

describe('durable character reservations', () => {
  const now = new Date('2025-03-10T12:00:00Z');
  const setup = () => {
    const db = openDatabase(':memory:');
    const a = createUserWithKey(db, { email: 'a@example.com', tier: 'free', now }).user.id;
    const b = createUserWithKey(db, { email: 'b@example.com', tier: 'free', now }).user.id;
    return { db, a, b, used: (id: string) => getCharactersUsed(db, id, '2025-03-01') };
  };

  it('settled keeps the characters; released gives them back; each leaves no reservation', () => {
    const { db, a, used } = setup();
    const kept = reserveDurably(db, { userId: a, characters: 100, now });
    expect(settleReservation(db, kept, () => 'stored')).toBe('stored');
    const failed = reserveDurably(db, { userId: a, characters: 40, now });
    expect(used(a)).toBe(140);
    releaseReservation(db, failed);
    releaseReservation(db, failed); // a second release gives nothing back twice
    expect(used(a)).toBe(100);
    expect(listReservations(db)).toEqual([]);
  });

  it('refunds at start exactly what crashed requests still hold, per user and period', () => {
    const { db, a, b, used } = setup();
    settleReservation(db, reserveDurably(db, { userId: a, characters: 7, now }), () => undefined);
    reserveDurably(db, { userId: a, characters: 30, now });
    reserveDurably(db, { userId: b, characters: 2000, now });
    expect([used(a), used(b)]).toEqual([37, 2000]);
    expect(refundStaleReservations(db)).toEqual({ refunded: 2, characters: 2030 });
    expect([used(a), used(b)]).toEqual([7, 0]);
    expect(refundStaleReservations(db)).toEqual({ refunded: 0, characters: 0 });
  });

  it('records nothing when the quota cannot hold the characters (429)', () => {
    const { db, a } = setup();
    expect(() => reserveDurably(db, { userId: a, characters: 10_001, now })).toThrow('Character quota exceeded for this billing period');
    expect(listReservations(db)).toEqual([]);
  });
});
