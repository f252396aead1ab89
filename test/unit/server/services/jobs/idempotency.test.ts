import { loadSqliteDriver } from '../../../../../src/server/storage/sqlite-driver.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../../../src/server/storage/migrations/index.js';
import { createSqliteDb } from '../../../../../src/server/storage/sql/sqlite.js';
import { parseIdempotencyKey, rememberIdempotent, replayIdempotent, requestHash } from '../../../../../src/server/features/jobs/idempotency.js';
import { DomainError } from '../../../../../src/shared/errors.js';
import { statusOf } from '../../../../../src/server/plugins/errors.js';

const Database = loadSqliteDriver();

describe('idempotency keys', () => {
  const raw = new Database(':memory:');
  migrate(raw);
  const db = createSqliteDb(raw);
  const t0 = new Date('2025-03-01T10:00:00Z');
  const hash = requestHash({ items: [['spk', 'hello']] });
  beforeAll(() => rememberIdempotent(db, { userId: 'u1', key: 'k', hash, now: t0, response: { job_id: 'job_1' } }));

  it('replays the same request within 24 h, per user', async () => {
    expect(await replayIdempotent(db, { userId: 'u1', key: 'k', hash, now: new Date(t0.getTime() + 23 * 3600e3) })).toEqual({ job_id: 'job_1' });
    expect(await replayIdempotent(db, { userId: 'u2', key: 'k', hash, now: t0 })).toBeUndefined();
  });

  it('refuses a different request with 422, and forgets keys after 24 h', async () => {
    const other = requestHash({ items: [['spk', 'bye']] });
    try {
      await replayIdempotent(db, { userId: 'u1', key: 'k', hash: other, now: t0 });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect(statusOf((err as DomainError).code)).toBe(422);
      expect((err as DomainError).message).toBe('Idempotency-Key reused with a different request');
    }
    expect(await replayIdempotent(db, { userId: 'u1', key: 'k', hash: other, now: new Date(t0.getTime() + 24 * 3600e3) })).toBeUndefined();
  });

  it('accepts header values of 1..255 characters', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('x'.repeat(255))).toHaveLength(255);
    expect(() => parseIdempotencyKey('x'.repeat(256))).toThrow(DomainError);
    expect(() => parseIdempotencyKey('')).toThrow(DomainError);
  });
});
