import type { Db } from '../db.js';
import { prepared } from './prepared.js';

/** A row of `character_reservations`: characters taken for a synthesis whose audio is not stored yet. */
export interface ReservationRow {
  id: string;
  user_id: string;
  period_start: string;
  characters: number;
  created_at: string;
}

/** Records a reservation (in the transaction that takes the characters). */
export function insertReservation(db: Db, row: ReservationRow): void {
  prepared(
    db,
    'INSERT INTO character_reservations (id, user_id, period_start, characters, created_at) VALUES (@id, @user_id, @period_start, @characters, @created_at)',
  ).run(row);
}

/** Forgets a reservation; false when it was already gone. */
export function deleteReservation(db: Db, id: string): boolean {
  return prepared(db, 'DELETE FROM character_reservations WHERE id = ?').run(id).changes === 1;
}

/** Every reservation still recorded, oldest first. */
export function listReservations(db: Db): ReservationRow[] {
  return prepared(db, 'SELECT * FROM character_reservations ORDER BY created_at, id').all() as ReservationRow[];
}
