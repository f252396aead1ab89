import { describe, expect, it } from 'vitest';
import { coreDb } from '../../../helpers/core-db.js';
import { openSqliteDatabase, type SqlParam } from '../../../../src/server/storage/db.js';
import { knownMigrations } from '../../../../src/server/storage/migrations/known.js';
import { insertUser, USER_BY_EMAIL_SQL } from '../../../../src/server/features/accounts/users-repository.js';
import { API_KEY_SQL } from '../../../../src/server/features/accounts/api-keys-repository.js';
import { CHARACTERS_USED_SQL } from '../../../../src/server/features/limits/usage-repository.js';
import { REQUEST_COUNTER_SQL } from '../../../../src/server/storage/repositories/request-counters.js';

const plan = async (db: ReturnType<typeof coreDb>, sql: string, ...args: SqlParam[]) =>
  (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, args)).map((r) => r.detail).join(' | ');

describe('migration 001-core', () => {
  it('migrates an in-memory database to the last version', async () => {
    const db = await openSqliteDatabase(':memory:');
    expect(await db.value('PRAGMA user_version')).toBe((await knownMigrations('sqlite')).length);
    const tables = await db.column<string>("SELECT name FROM sqlite_master WHERE type = 'table'");
    expect(tables).toEqual(expect.arrayContaining(['users', 'api_keys', 'usage_periods', 'request_counters']));
    await db.close();
  });

  it('looks keys up by hash through the unique index, joined to the user by primary key', async () => {
    const db = coreDb();
    const p = await plan(db, API_KEY_SQL.byHash, 'x');
    expect(p).toContain('USING INDEX api_keys_key_hash');
    expect(p).toMatch(/SEARCH u USING INDEX sqlite_autoindex_users_1/);
    expect(p).not.toMatch(/\bSCAN\b/);
  });

  it('uses indexes for users by email, keys by user, usage and counters', async () => {
    const db = coreDb();
    // The repositories' own SQL, not copies: a query edited there is checked here.
    expect(await plan(db, USER_BY_EMAIL_SQL.sqlite, 'a')).toContain('USING INDEX users_email');
    expect(await plan(db, API_KEY_SQL.pageByUser, 'u', 20, 0)).toContain('USING INDEX api_keys_user');
    expect(await plan(db, CHARACTERS_USED_SQL, 'u', 'p')).toContain('PRIMARY KEY');
    expect(await plan(db, REQUEST_COUNTER_SQL.load, 's', 'd')).toContain('PRIMARY KEY');
    expect(await plan(db, REQUEST_COUNTER_SQL.pruneBefore, 'd')).toContain('request_counters_day');
  });

  it('enforces case-insensitive unique emails, tier and scope values, and foreign keys', async () => {
    const db = coreDb();
    const user = { id: 'usr_1', email: 'A@x.io', name: null, subscription_tier: 'free' as const, created_at: 't' };
    await insertUser(db, user);
    await expect(insertUser(db, { ...user, id: 'usr_2', email: 'a@X.io' })).rejects.toThrow(/UNIQUE/);
    await expect(insertUser(db, { ...user, id: 'usr_3', email: 'b@x.io', subscription_tier: 'gold' as never })).rejects.toThrow(/CHECK/);
    await expect(
      db.run("INSERT INTO api_keys (id, user_id, name, scope, prefix, key_hash, created_at) VALUES ('k', 'usr_9', 'n', 'full', 'p', 'h', 't')"),
    ).rejects.toThrow(/FOREIGN KEY/);
    await expect(
      db.run("INSERT INTO api_keys (id, user_id, name, scope, prefix, key_hash, created_at) VALUES ('k', 'usr_1', 'n', 'admin', 'p', 'h', 't')"),
    ).rejects.toThrow(/CHECK/);
  });
});
