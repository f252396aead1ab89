import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, createSandbox, serveDetached, type Sandbox, type ServedCli } from '../helpers/cli.js';

// The real Secret Service: a private D-Bus session with an unlocked gnome-keyring (scripts/with-keyring.mjs),
// started by this test itself so it does not depend on how vitest was launched.
const WITH_KEYRING = join(import.meta.dirname, '../../scripts/with-keyring.mjs');
let sb: Sandbox;
let server: ServedCli;

beforeAll(async () => {
  sb = createSandbox();
  server = await serveDetached(sb);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

describe('keychain', () => {
  it('auth login stores the key in the Secret Service, auth logout removes it', async () => {
    const script = join(sb.root, 'flow.sh');
    const v = `"${process.execPath}" "${BIN}"`;
    writeFileSync(
      script,
      [
        'set -u',
        `printf '%s' "$KEY" | ${v} auth login --with-token; echo "LOGIN_EXIT=$?"`,
        'echo "--- search after login"; secret-tool search service voxctl 2>&1',
        `${v} auth status --json; echo "STATUS_EXIT=$?"`,
        `${v} whoami --json >/dev/null; echo "WHOAMI_EXIT=$?"`,
        `${v} auth logout; echo "LOGOUT_EXIT=$?"`,
        'echo "--- search after logout"; secret-tool search service voxctl 2>&1; echo "--- end"',
      ].join('\n'),
    );
    const r = await execa('dbus-run-session', ['--', process.execPath, WITH_KEYRING, 'sh', script], {
      env: { ...sb.env, VOXCTL_BASE_URL: server.url, KEY: server.key },
      extendEnv: false,
      reject: false,
      timeout: 90_000,
    });
    const out = r.stdout;
    expect(out, r.stderr).toContain('LOGIN_EXIT=0');
    const afterLogin = out.slice(out.indexOf('--- search after login'), out.indexOf('STATUS_EXIT'));
    expect(afterLogin).toContain('attribute.service = voxctl');
    expect(afterLogin).toContain('attribute.username = default');
    expect(afterLogin).toContain(`secret = ${server.key}`);
    expect(r.stderr).not.toContain('keychain unreachable');
    const status = JSON.parse(out.slice(out.indexOf('{'), out.indexOf('STATUS_EXIT'))) as { key_source: string; keychain: string; state: string };
    expect(status).toMatchObject({ key_source: 'keychain', keychain: 'ok', state: 'ok' });
    expect(out).toContain('WHOAMI_EXIT=0');
    expect(out).toContain('LOGOUT_EXIT=0');
    const afterLogout = out.slice(out.indexOf('--- search after logout'), out.indexOf('--- end'));
    expect(afterLogout).not.toContain('voxctl');
  }, 120_000);

  it('a Secret Service that answers reads but refuses writes: doctor and auth status give the one answer, unreachable', async () => {
    // D-Bus activates gnome-keyring with no unlocked collection: reading finds nothing (no error), every
    // write fails. Reading alone would call that keychain fine while the key had to go to the file.
    const script = join(sb.root, 'locked.sh');
    const v = `"${process.execPath}" "${BIN}"`;
    writeFileSync(
      script,
      [
        `printf '%s' "$KEY" | ${v} auth login --with-token 2>login.err; echo "LOGIN_EXIT=$?"`,
        `${v} auth status --json > status.json; echo "STATUS_EXIT=$?"`,
        `${v} doctor --json > doctor.json; echo "DOCTOR_EXIT=$?"`,
      ].join('\n'),
    );
    const r = await execa('dbus-run-session', ['--', 'sh', script], {
      env: { ...sb.env, VOXCTL_BASE_URL: server.url, KEY: server.key },
      extendEnv: false,
      reject: false,
      cwd: sb.root,
      timeout: 90_000,
    });
    expect(r.stdout, r.stderr).toContain('LOGIN_EXIT=0');
    expect(readFileSync(join(sb.root, 'login.err'), 'utf8')).toMatch(/keychain unreachable .* key stored in .*credentials\.json/);
    const status = JSON.parse(readFileSync(join(sb.root, 'status.json'), 'utf8')) as { key_source: string; keychain: string; keychain_error: string | null };
    const doctor = JSON.parse(readFileSync(join(sb.root, 'doctor.json'), 'utf8')) as { checks: { check: string; status: string; detail: string }[] };
    const check = doctor.checks.find((c) => c.check === 'keychain')!;
    expect(status.key_source).toBe('file');
    expect(status.keychain).toBe('unreachable');
    expect(check.status).toBe('warn');
    expect(check.detail).toContain(status.keychain_error!);
  }, 120_000);

  it('without D-Bus the 0600 file fallback engages with its one-line warning', async () => {
    const r = await cli(sb, ['auth', 'login', '--with-token'], { env: { VOXCTL_BASE_URL: server.url, DBUS_SESSION_BUS_ADDRESS: undefined }, input: server.key });
    expect(r.exitCode, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('Warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/keychain unreachable .* key stored in .*credentials\.json \(mode 0600\)/);
    const st = JSON.parse((await cli(sb, ['auth', 'status', '--json'], { env: { VOXCTL_BASE_URL: server.url } })).stdout) as { key_source: string };
    expect(st.key_source).toBe('file');
    // One probe, one answer: doctor reads the keychain the way auth status does.
    const status = JSON.parse((await cli(sb, ['auth', 'status', '--json'], { env: { VOXCTL_BASE_URL: server.url } })).stdout) as { keychain: string };
    const doctor = JSON.parse((await cli(sb, ['doctor', '--json'], { env: { VOXCTL_BASE_URL: server.url } })).stdout) as { checks: { check: string; status: string }[] };
    expect(status.keychain).toBe('unreachable');
    expect(doctor.checks.find((c) => c.check === 'keychain')?.status).toBe('warn');
    const insecure = await cli(sb, ['auth', 'login', '--with-token', '--insecure-storage'], { env: { VOXCTL_BASE_URL: server.url }, input: server.key });
    expect(insecure.exitCode).toBe(0);
    expect(insecure.stderr).not.toContain('Warning');
  });
});
