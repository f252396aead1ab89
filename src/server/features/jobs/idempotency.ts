import { createHash } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import { findIdempotencyKey, saveIdempotencyKey } from './idempotency-repository.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';

/** Replays are honoured for 24 h (DESIGN §4.8). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Longest accepted `Idempotency-Key`. */
export const MAX_IDEMPOTENCY_KEY = 255;

/** Validates the header value: absent → undefined; empty or longer than 255 characters → 400. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
    throw validationFailed(`Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`);
  }
  return key;
}

/** SHA-256 of a canonical form of the request (the caller picks the fields that define "the same request"). */
export const requestHash = (canonical: unknown): string => createHash('sha256').update(JSON.stringify(canonical)).digest('hex');

/**
 * The stored response for (`userId`, `key`) when it is younger than 24 h: the same request gets it
 * back, a different request with the same key is a 422. Undefined when the key is new or expired.
 */
export async function replayIdempotent<T>(db: Db, q: { userId: string; key: string; hash: string; now: Date }): Promise<T | undefined> {
  const row = await findIdempotencyKey(db, q.userId, q.key);
  if (!row || Date.parse(row.created_at) + IDEMPOTENCY_TTL_MS <= q.now.getTime()) return undefined;
  if (row.request_hash !== q.hash) throw new DomainError('idempotency_conflict', 'Idempotency-Key reused with a different request');
  return JSON.parse(row.response) as T;
}

/** Records the response given for (`userId`, `key`); call in the transaction that created it. */
export async function rememberIdempotent(db: Db, r: { userId: string; key: string; hash: string; now: Date; response: unknown }): Promise<void> {
  await saveIdempotencyKey(db, {
    user_id: r.userId,
    key: r.key,
    request_hash: r.hash,
    response: JSON.stringify(r.response),
    created_at: r.now.toISOString(),
  });
}
