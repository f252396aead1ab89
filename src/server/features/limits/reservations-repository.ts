import type { Db } from '../../storage/db.js';

/** A row of `character_reservations`: characters taken for a synthesis whose audio is not stored yet. */
export interface ReservationRow {
  id: string;
  user_id: string;
  period_start: string;
  characters: number;
  created_at: string;
  /** The instance whose request holds it (null on SQLite: one instance per data dir). */
  owner: string | null;
}

/** Records a reservation (in the transaction that takes the characters). */
export async function insertReservation(db: Db, row: ReservationRow): Promise<void> {
  await db.run(
    'INSERT INTO character_reservations (id, user_id, period_start, characters, created_at, owner) VALUES (@id, @user_id, @period_start, @characters, @created_at, @owner)',
    { ...row },
  );
}

/** Forgets a reservation; false when it was already gone. */
export async function deleteReservation(db: Db, id: string): Promise<boolean> {
  return (await db.run('DELETE FROM character_reservations WHERE id = ?', [id])) === 1;
}

/** Every reservation still recorded, oldest first. */
export function listReservations(db: Db): Promise<ReservationRow[]> {
  return db.all<ReservationRow>('SELECT * FROM character_reservations ORDER BY created_at, id');
}

/** Reservations no live instance holds: their owner is gone from `instances` or stopped beating before `deadBefore`. */
export function listOrphanedReservations(db: Db, deadBefore: string): Promise<ReservationRow[]> {
  return db.all<ReservationRow>(
    `SELECT r.* FROM character_reservations r LEFT JOIN instances i ON i.id = r.owner
     WHERE i.id IS NULL OR i.heartbeat_at < ? ORDER BY r.created_at, r.id`,
    [deadBefore],
  );
}
