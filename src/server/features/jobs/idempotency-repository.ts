import type { Db } from '../../storage/db.js';

/** A stored answer to a request sent with an `Idempotency-Key`. */
export interface IdempotencyRow {
  user_id: string;
  key: string;
  request_hash: string;
  response: string;
  created_at: string;
}

/** The record of `key` for `userId`, or undefined. */
export function findIdempotencyKey(db: Db, userId: string, key: string): Promise<IdempotencyRow | undefined> {
  return db.get<IdempotencyRow>('SELECT * FROM idempotency_keys WHERE user_id = ? AND key = ?', [userId, key]);
}

/** Stores (or replaces an expired) record of `key`. */
export async function saveIdempotencyKey(db: Db, row: IdempotencyRow): Promise<void> {
  await db.run(
    `INSERT INTO idempotency_keys (user_id, key, request_hash, response, created_at)
     VALUES (@user_id, @key, @request_hash, @response, @created_at)
     ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash, response = excluded.response,
       created_at = excluded.created_at`,
    { ...row },
  );
}
