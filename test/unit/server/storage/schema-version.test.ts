import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../../../src/server/storage/db.js';
import { knownMigrations } from '../../../../src/server/storage/migrations/known.js';
import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';

const dir = mkdtempSync(join(tmpdir(), 'voxctl-schema-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a SQLite schema newer than this voxctl (DESIGN §9.5)', () => {
  it('refuses to open it, naming both versions, and leaves it untouched', async () => {
    const file = join(dir, 'voxctl.db');
    await (await openSqliteDatabase(file)).close();
    const Driver = loadSqliteDriver();
    const raw = new Driver(file);
    const known = (await knownMigrations('sqlite')).length;
    raw.pragma(`user_version = ${known + 3}`);
    raw.close();
    await expect(openSqliteDatabase(file)).rejects.toThrow(
      `Database schema version ${known + 3} is newer than this voxctl knows (${known}); upgrade voxctl or use another database`,
    );
    const after = new Driver(file, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(known + 3);
    after.close();
  });
});
