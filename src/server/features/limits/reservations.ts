import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import { deleteReservation, insertReservation, listOrphanedReservations, listReservations } from './reservations-repository.js';
import { refundCharacters, reserveCharacters } from './quota.js';

/**
 * Durable reservations of one synthesis (DESIGN §4.6: a failed synthesis consumes nothing). The
 * characters are taken and the reservation recorded in one transaction; storing the audio and
 * forgetting the reservation share another. So whatever a crash interrupts, a reservation still recorded
 * at the next start has no stored result, and is refunded then.
 */
export interface Reservation {
  id: string;
  userId: string;
  period: string;
  characters: number;
}

/** Takes `characters` of the user's quota (429 when they do not fit) and records the reservation. */
export async function reserveDurably(db: Db, opts: { userId: string; characters: number; now: Date; owner?: string }): Promise<Reservation> {
  const id = `rsv_${randomBytes(12).toString('hex')}`;
  return db.transaction(async () => {
    const { period } = await reserveCharacters(db, opts);
    await insertReservation(db, { id, user_id: opts.userId, period_start: period, characters: opts.characters, created_at: opts.now.toISOString(), owner: opts.owner ?? null });
    return { id, userId: opts.userId, period, characters: opts.characters };
  });
}

/** Runs `store` (the insert of the result) and forgets the reservation in one transaction: the characters stay used. */
export async function settleReservation<T>(db: Db, reservation: Reservation, store: () => Promise<T>): Promise<T> {
  return db.transaction(async () => {
    const out = await store();
    await deleteReservation(db, reservation.id);
    return out;
  });
}

/** Gives the characters back and forgets the reservation (the work failed). */
export async function releaseReservation(db: Db, reservation: Reservation): Promise<void> {
  await db.transaction(async () => {
    if (await deleteReservation(db, reservation.id)) await refundCharacters(db, reservation);
  });
}

/**
 * Refunds the reservations a crash left behind (none of them has a stored result). With one instance per
 * data dir (SQLite) that is every reservation at start, before any request. Instances sharing a database
 * pass `deadBefore`: only reservations of instances gone from the heartbeat table, or silent since then,
 * are refunded — a live peer's requests in flight keep theirs.
 */
export async function refundStaleReservations(db: Db, opts: { deadBefore?: Date } = {}): Promise<{ refunded: number; characters: number }> {
  return db.transaction(async () => {
    let characters = 0;
    const rows = opts.deadBefore ? await listOrphanedReservations(db, opts.deadBefore.toISOString()) : await listReservations(db);
    for (const row of rows) {
      await refundCharacters(db, { userId: row.user_id, period: row.period_start, characters: row.characters });
      await deleteReservation(db, row.id);
      characters += row.characters;
    }
    return { refunded: rows.length, characters };
  });
}
