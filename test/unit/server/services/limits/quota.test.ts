import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { coreDb } from '../../../../helpers/core-db.js';
import { billingPeriod, getUsage, refundCharacters, reserveCharacters } from '../../../../../src/server/features/limits/quota.js';
import { createUserWithKey } from '../../../../../src/server/features/accounts/users.js';
import { updateUserTier } from '../../../../../src/server/features/accounts/users-repository.js';
import { openSqliteDatabase } from '../../../../../src/server/storage/db.js';

const now = new Date('2025-02-14T23:59:00Z');

describe('billing period', () => {
  it('is the calendar month in UTC', () => {
    expect(billingPeriod(now)).toEqual({ start: '2025-02-01', end: '2025-02-28' });
    expect(billingPeriod(new Date('2024-02-29T23:59:59.999Z'))).toEqual({ start: '2024-02-01', end: '2024-02-29' });
    expect(billingPeriod(new Date('2025-12-31T23:59:59Z'))).toEqual({ start: '2025-12-01', end: '2025-12-31' });
    expect(billingPeriod(new Date('2026-01-01T00:00:00Z'))).toEqual({ start: '2026-01-01', end: '2026-01-31' });
  });
});

describe('quota', () => {
  it('reserves up to the tier limit exactly, then answers 429 consuming nothing', async () => {
    const db = coreDb();
    const { user } = await createUserWithKey(db, { email: 'a@b.c', tier: 'free', now });
    expect(await reserveCharacters(db, { userId: user.id, characters: 9_999, now })).toEqual({ period: '2025-02-01', characters: 9_999 });
    await expect(reserveCharacters(db, { userId: user.id, characters: 2, now })).rejects.toThrow('Character quota exceeded for this billing period');
    await reserveCharacters(db, { userId: user.id, characters: 1, now });
    expect(await getUsage(db, { userId: user.id, now, requestsToday: 3 })).toEqual({
      characters_used: 10_000,
      characters_limit: 10_000,
      requests_today: 3,
      period_start: '2025-02-01',
      period_end: '2025-02-28',
      subscription_tier: 'free',
    });
  });

  it('starts afresh in the next month and refunds to the period reserved from', async () => {
    const db = coreDb();
    const { user } = await createUserWithKey(db, { email: 'a@b.c', now });
    const r = await reserveCharacters(db, { userId: user.id, characters: 10_000, now });
    const march = new Date('2025-03-01T00:00:00Z');
    expect((await getUsage(db, { userId: user.id, now: march, requestsToday: 0 })).characters_used).toBe(0);
    await reserveCharacters(db, { userId: user.id, characters: 500, now: march });
    await refundCharacters(db, { userId: user.id, period: r.period, characters: 4_000 });
    expect((await getUsage(db, { userId: user.id, now, requestsToday: 0 })).characters_used).toBe(6_000);
    expect((await getUsage(db, { userId: user.id, now: march, requestsToday: 0 })).characters_used).toBe(500);
    await refundCharacters(db, { userId: user.id, period: r.period, characters: 1_000_000 });
    expect((await getUsage(db, { userId: user.id, now, requestsToday: 0 })).characters_used).toBe(0);
  });

  it('applies a tier change at once', async () => {
    const db = coreDb();
    const { user } = await createUserWithKey(db, { email: 'a@b.c', now });
    await expect(reserveCharacters(db, { userId: user.id, characters: 50_000, now })).rejects.toThrow(/quota/);
    await updateUserTier(db, user.id, 'starter');
    await reserveCharacters(db, { userId: user.id, characters: 50_000, now });
    expect((await getUsage(db, { userId: user.id, now, requestsToday: 0 })).characters_limit).toBe(100_000);
  });

  it('rolls back with the caller\'s transaction (joining it)', async () => {
    const db = coreDb();
    const { user } = await createUserWithKey(db, { email: 'a@b.c', now });
    await expect(
      db.transaction(async () => {
        await reserveCharacters(db, { userId: user.id, characters: 100, now });
        throw new Error('synthesis failed');
      }),
    ).rejects.toThrow('synthesis failed');
    expect((await getUsage(db, { userId: user.id, now, requestsToday: 0 })).characters_used).toBe(0);
  });
});

describe('quota under 20 concurrent reservations from separate connections', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-quota-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('never overshoots: exactly the reservations that fit succeed', async () => {
    const file = join(dir, 'voxctl.db');
    const db = await openSqliteDatabase(file);
    const { user } = await createUserWithKey(db, { email: 'a@b.c', tier: 'free', now: new Date() });
    await db.close();
    // Each worker thread owns a connection and runs the real service, built to dist/ (workers cannot load .ts).
    const quotaUrl = new URL('../../../../../dist/server/features/limits/quota.js', import.meta.url);
    const driverUrl = new URL('../../../../../dist/server/storage/sqlite-driver.js', import.meta.url);
    const seamUrl = new URL('../../../../../dist/server/storage/sql/sqlite.js', import.meta.url);
    if (!existsSync(quotaUrl) || !existsSync(seamUrl)) execSync('npm run build --silent', { stdio: 'ignore' });
    const gate = new Int32Array(new SharedArrayBuffer(4));
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      (async () => {
        const { reserveCharacters } = await import(workerData.quotaUrl);
        const Database = (await import(workerData.driverUrl)).loadSqliteDriver();
        const { createSqliteDb } = await import(workerData.seamUrl);
        const raw = new Database(workerData.file);
        raw.pragma('busy_timeout = 10000');
        const db = createSqliteDb(raw);
        Atomics.wait(workerData.gate, 0, 0);
        try {
          await reserveCharacters(db, { userId: workerData.userId, characters: 700, now: new Date() });
          parentPort.postMessage('ok');
        } catch (err) {
          parentPort.postMessage(err.code === 'quota_exceeded' ? '429' : 'error: ' + err.message);
        } finally {
          await db.close();
        }
      })();`;
    const results = Array.from({ length: 20 }, () => {
      const w = new Worker(code, { eval: true, workerData: { file, userId: user.id, gate, quotaUrl: quotaUrl.href, driverUrl: driverUrl.href, seamUrl: seamUrl.href } });
      return new Promise<string>((resolve, reject) => {
        w.once('message', (m: string) => {
          resolve(m);
          void w.terminate();
        });
        w.once('error', reject);
      });
    });
    await new Promise((r) => setTimeout(r, 300));
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    const outcomes = await Promise.all(results);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(14);
    expect(outcomes.filter((o) => o === '429')).toHaveLength(6);
    const check = await openSqliteDatabase(file);
    expect((await getUsage(check, { userId: user.id, now: new Date(), requestsToday: 0 })).characters_used).toBe(9_800);
    await check.close();
  });
});
