import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coreDb } from '../../../../helpers/core-db.js';
import { bootstrapIfEmpty } from '../../../../../src/server/features/accounts/bootstrap.js';
import { API_KEY_PATTERN, authenticateApiKey } from '../../../../../src/server/features/accounts/keys.js';
import { findUserByEmail } from '../../../../../src/server/features/accounts/users-repository.js';

const now = new Date('2025-03-10T12:00:00Z');
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'voxctl-boot-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('bootstrap', () => {
  it('creates a pro admin with a random full key on an empty database and writes it 0600', async () => {
    const db = coreDb();
    const dataDir = tempDir();
    const result = await bootstrapIfEmpty(db, { dataDir, now });
    expect(result?.key).toMatch(API_KEY_PATTERN);
    expect(result?.warning).toBeUndefined();
    const file = join(dataDir, 'bootstrap-key');
    expect(readFileSync(file, 'utf8')).toBe(`${result!.key}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const admin = await findUserByEmail(db, 'admin@localhost');
    expect(admin?.subscription_tier).toBe('pro');
    expect(await authenticateApiKey(db, result!.key, now)).toMatchObject({ userId: admin!.id, scope: 'full', tier: 'pro' });
  });

  it('uses VOXCTL_BOOTSTRAP_KEY when valid, and runs only once', async () => {
    const db = coreDb();
    const key = 'vox_' + 'a1B2_-'.repeat(6) + 'zzzz';
    expect(await bootstrapIfEmpty(db, { dataDir: tempDir(), bootstrapKey: key, now })).toEqual({ key });
    expect(await bootstrapIfEmpty(db, { dataDir: tempDir(), bootstrapKey: key, now })).toBeUndefined();
    expect(await db.get('SELECT count(*) AS n FROM users')).toEqual({ n: 1 });
  });

  it('ignores a malformed bootstrap key with a warning', async () => {
    const result = await bootstrapIfEmpty(coreDb(), { dataDir: tempDir(), bootstrapKey: 'secret', now });
    expect(result?.key).toMatch(API_KEY_PATTERN);
    expect(result?.key).not.toBe('secret');
    expect(result?.warning).toMatch(/VOXCTL_BOOTSTRAP_KEY ignored/);
  });
});
