import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../../../src/server/storage/migrations/index.js';
import { portalSession } from '../../../../src/server/features/billing/portal-sessions.js';
import { createSqliteDb } from '../../../../src/server/storage/sql/sqlite.js';

const Database = loadSqliteDriver();

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('migration 004 (portal browser sessions, character reservations)', () => {
  it('keeps a portal session opened before the upgrade', async () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    db.transaction(() => {
      for (const m of migrations.filter((x) => x.version <= 3)) m.up(db);
      db.pragma('user_version = 3');
    })();
    db.prepare("INSERT INTO users (id, email, name, subscription_tier, created_at) VALUES ('usr_1', 'a@b.c', 'A', 'pro', '2025-01-01T00:00:00Z')").run();
    const sessionId = 'S'.repeat(43);
    db.prepare(
      `INSERT INTO billing_portal_sessions (token_hash, user_id, created_at, expires_at, used_at, session_hash)
       VALUES (?, 'usr_1', '2025-03-01T00:00:00Z', '2025-03-02T00:00:00Z', '2025-03-01T00:01:00Z', ?)`,
    ).run(sha256('T'.repeat(43)), sha256(sessionId));
    migrate(db);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    const seam = createSqliteDb(db);
    expect(await portalSession(seam, { sessionId, now: new Date('2025-03-01T12:00:00Z') })).toEqual({ userId: 'usr_1', expiresAt: new Date('2025-03-02T00:00:00Z') });
    expect(await portalSession(seam, { sessionId, now: new Date('2025-03-02T00:00:01Z') })).toBeUndefined();
    await seam.close();
  });
});
