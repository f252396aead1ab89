import { randomBytes } from 'node:crypto';
import type { Db } from '../storage/db.js';
import { inTransaction } from '../storage/db.js';
import { deleteReservation, insertReservation, listReservations } from '../storage/repositories/reservations.js';
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
export function reserveDurably(db: Db, opts: { userId: string; characters: number; now: Date }): Reservation {
  return inTransaction(db, () => {
    const { period } = reserveCharacters(db, opts);
    const id = `rsv_${randomBytes(12).toString('hex')}`;
    insertReservation(db, { id, user_id: opts.userId, period_start: period, characters: opts.characters, created_at: opts.now.toISOString() });
    return { id, userId: opts.userId, period, characters: opts.characters };
  });
}

/** Runs `store` (the insert of the result) and forgets the reservation in one transaction: the characters stay used. */
export function settleReservation<T>(db: Db, reservation: Reservation, store: () => T): T {
  return inTransaction(db, () => {
    const out = store();
    deleteReservation(db, reservation.id);
    return out;
  });
}

/** Gives the characters back and forgets the reservation (the work failed). */
export function releaseReservation(db: Db, reservation: Reservation): void {
  inTransaction(db, () => {
    if (deleteReservation(db, reservation.id)) refundCharacters(db, reservation);
  });
}

/**
 * At start, before any request: refunds every reservation a crash left behind (none of them has a stored
 * result). Only one server uses a data dir at a time, so none of them belongs to a request in flight.
 */
export function refundStaleReservations(db: Db): { refunded: number; characters: number } {
  return inTransaction(db, () => {
    let characters = 0;
    const rows = listReservations(db);
    for (const row of rows) {
      refundCharacters(db, { userId: row.user_id, period: row.period_start, characters: row.characters });
      deleteReservation(db, row.id);
      characters += row.characters;
    }
    return { refunded: rows.length, characters };
  });
}
