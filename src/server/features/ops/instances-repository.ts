import type { Db } from '../../storage/db.js';

/** A running `voxctl serve` as its peers see it. */
export interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  started_at: string;
  heartbeat_at: string;
}

/** Records a starting instance. */
export async function insertInstance(db: Db, row: InstanceRow): Promise<void> {
  await db.run('INSERT INTO instances (id, host, pid, started_at, heartbeat_at) VALUES (@id, @host, @pid, @started_at, @heartbeat_at)', { ...row });
}

/**
 * Marks the instance alive at `row.heartbeat_at`. After a long database outage a peer may have forgotten
 * it (silent for a minute): the row is written again rather than the beat landing nowhere.
 */
export async function beat(db: Db, row: InstanceRow): Promise<void> {
  await db.run(
    `INSERT INTO instances (id, host, pid, started_at, heartbeat_at) VALUES (@id, @host, @pid, @started_at, @heartbeat_at)
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
    { ...row },
  );
}

/** Forgets an instance (it stopped), and every instance silent since `deadBefore`. */
export async function deleteInstances(db: Db, o: { id?: string; deadBefore?: string }): Promise<void> {
  if (o.id) await db.run('DELETE FROM instances WHERE id = ?', [o.id]);
  if (o.deadBefore) await db.run('DELETE FROM instances WHERE heartbeat_at < ?', [o.deadBefore]);
}
