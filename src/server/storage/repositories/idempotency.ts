import type { Db } from '../db.js';

/** A stored answer to a request sent with an `Idempotency-Key`. */
export interface IdempotencyRow {
  user_id: string;
  key: string;
  request_hash: string;
  response: string;
  created_at: string;
}

/** The record of `key` for `userId`, or undefined. */
export function findIdempotencyKey(db: Db, userId: string, key: string): IdempotencyRow | undefined {
  return db.prepare('SELECT * FROM idempotency_keys WHERE user_id = ? AND key = ?').get(userId, key) as
    | IdempotencyRow
    | undefined;
}

/** Stores (or replaces an expired) record of `key`. */
export function saveIdempotencyKey(db: Db, row: IdempotencyRow): void {
  db.prepare(
    `INSERT OR REPLACE INTO idempotency_keys (user_id, key, request_hash, response, created_at)
     VALUES (@user_id, @key, @request_hash, @response, @created_at)`,
  ).run(row);
}
