import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { call } from '../helpers/core-http.js';
import { TEST_KEY } from '../helpers/server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'voxctl.js');
const voxctl = (args: string[]) => execa('node', [bin, ...args], { cwd: root, reject: false, timeout: 30_000, env: { FORCE_COLOR: '0', NO_COLOR: '1' } });

// DESIGN §14.8: an operator lists accounts, disables and enables them and revokes any key — on the data
// dir of a running instance, which sees each change on its next request.
describe('voxctl admin users list|disable|enable, admin keys revoke', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-admin-accounts-'));
  let server: ServeProcess;
  let adaKey: string;
  const as = (key: string) => call({ url: server.url }, 'GET', '/v1/users/me', { key });
  const admin = (...args: string[]) => voxctl(['admin', ...args, '--data-dir', dataDir]);

  beforeAll(async () => {
    server = await startServe(dataDir);
    const created = await admin('users', 'create', '--email', 'ada@example.com', '--name', 'Ada');
    expect(created.exitCode, created.stderr).toBe(0);
    adaKey = created.stdout.trim();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists every account with its state, as a table and as JSON', async () => {
    const json = await admin('users', 'list', '--json');
    expect(json.exitCode, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as { items: { email: string; disabled: boolean; id: string }[]; total: number };
    expect(listed.total).toBe(2);
    expect(listed.items.map((u) => [u.email, u.disabled])).toEqual([
      ['admin@localhost', false],
      ['ada@example.com', false],
    ]);
    const table = await admin('users', 'list');
    expect(table.stdout).toMatch(/^ID\s+EMAIL\s+NAME\s+TIER/);
    expect(table.stdout).toMatch(/ada@example\.com\s+Ada\s+free\s+active\s+active/);
  });

  it('disable stops the account\'s keys on the running instance, enable brings them back; both are idempotent', async () => {
    expect((await as(adaKey)).status).toBe(200);
    const off = await admin('users', 'disable', 'ADA@example.com', '--json');
    expect(off.exitCode, off.stderr).toBe(0);
    const user = JSON.parse(off.stdout) as { disabled: boolean; disabled_at: string; id: string };
    expect(user).toMatchObject({ disabled: true, disabled_at: expect.any(String) });
    expect((await as(adaKey)).status).toBe(401);
    expect((await as(TEST_KEY)).status).toBe(200);
    const again = JSON.parse((await admin('users', 'disable', user.id, '--json')).stdout) as { disabled_at: string };
    expect(again.disabled_at).toBe(user.disabled_at);
    const on = await admin('users', 'enable', user.id, '--json');
    expect(JSON.parse(on.stdout)).toMatchObject({ disabled: false, disabled_at: null });
    expect((await as(adaKey)).status).toBe(200);
  });

  it('keys revoke ends any user\'s key at once; an unknown user or key exits 4', async () => {
    const keys = await call({ url: server.url }, 'GET', '/v1/keys', { key: adaKey });
    const keyId = (keys.body.items as { id: string }[])[0]!.id;
    const revoked = await admin('keys', 'revoke', keyId, '--json');
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: keyId, revoked_at: expect.any(String) });
    expect((await as(adaKey)).status).toBe(401);
    const unknownKey = await admin('keys', 'revoke', 'key_000000000000000000000000');
    expect(unknownKey.exitCode).toBe(4);
    expect(unknownKey.stderr).toContain('Key not found: key_000000000000000000000000');
    const unknownUser = await admin('users', 'disable', 'nobody@example.com');
    expect(unknownUser.exitCode).toBe(4);
    expect(unknownUser.stderr).toContain('User not found: nobody@example.com');
  });
});
