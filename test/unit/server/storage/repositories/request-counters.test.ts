import { describe, expect, it } from 'vitest';
import { coreDb } from '../../../../helpers/core-db.js';
import { deleteRequestCountsBefore, loadRequestCount, saveRequestCounts } from '../../../../../src/server/storage/repositories/request-counters.js';
import { addCharactersUsed, getCharactersUsed, listUsagePeriods, subtractCharactersUsed } from '../../../../../src/server/features/limits/usage-repository.js';
import { insertUser } from '../../../../../src/server/features/accounts/users-repository.js';

describe('request counters repository', () => {
  it('upserts counts, never lowering a stored one, and prunes old days', async () => {
    const db = coreDb();
    expect(await loadRequestCount(db, 'key_a', '2025-03-10')).toBe(0);
    await saveRequestCounts(db, [
      { subject: 'key_a', day: '2025-03-09', count: 4 },
      { subject: 'key_a', day: '2025-03-10', count: 7 },
      { subject: 'usr_a', day: '2025-03-10', count: 9 },
    ]);
    await saveRequestCounts(db, [{ subject: 'key_a', day: '2025-03-10', count: 5 }]);
    expect(await loadRequestCount(db, 'key_a', '2025-03-10')).toBe(7);
    await saveRequestCounts(db, [{ subject: 'key_a', day: '2025-03-10', count: 12 }]);
    expect(await loadRequestCount(db, 'key_a', '2025-03-10')).toBe(12);
    await deleteRequestCountsBefore(db, '2025-03-10');
    expect(await loadRequestCount(db, 'key_a', '2025-03-09')).toBe(0);
    expect(await loadRequestCount(db, 'usr_a', '2025-03-10')).toBe(9);
  });
});

describe('usage repository', () => {
  it('adds, subtracts (not below zero) and lists periods in order', async () => {
    const db = coreDb();
    await insertUser(db, { id: 'usr_a', email: 'a@b.c', name: null, subscription_tier: 'free', created_at: 't' });
    await addCharactersUsed(db, 'usr_a', '2025-03-01', 10);
    await addCharactersUsed(db, 'usr_a', '2025-03-01', 5);
    await addCharactersUsed(db, 'usr_a', '2025-01-01', 3);
    await subtractCharactersUsed(db, 'usr_a', '2025-01-01', 10);
    expect(await getCharactersUsed(db, 'usr_a', '2025-03-01')).toBe(15);
    expect(await getCharactersUsed(db, 'usr_a', '2025-02-01')).toBe(0);
    expect(await listUsagePeriods(db, 'usr_a')).toEqual([
      { user_id: 'usr_a', period_start: '2025-01-01', characters_used: 0 },
      { user_id: 'usr_a', period_start: '2025-03-01', characters_used: 15 },
    ]);
  });
});
