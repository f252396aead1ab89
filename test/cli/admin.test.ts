import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { startServe } from '../helpers/serve-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'voxctl.js');

/** Runs the built CLI like a user would, without colours, never rejecting on a non-zero exit. */
const voxctl = (args: string[], env: Record<string, string> = {}) =>
  execa('node', [bin, ...args], { cwd: root, reject: false, timeout: 30_000, env: { FORCE_COLOR: '0', NO_COLOR: '1', ...env } });

describe('voxctl admin users create', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-admin-'));
  beforeAll(() => {
    if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) execSync('npm run build --silent', { cwd: root, stdio: 'ignore' });
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints only the new key on stdout (exit 0), and the key works against the service', async () => {
    const res = await voxctl(['admin', 'users', 'create', '--email', 'ada@example.com', '--name', 'Ada', '--tier', 'starter', '--data-dir', dataDir]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^vox_[A-Za-z0-9_-]{40}$/);
    expect(readdirSync(dataDir)).toContain('voxctl.db');
    // The data dir already has a user: the server must not bootstrap another one.
    const server = await startTestServer({ dataDir });
    try {
      const me = await call(server, 'GET', '/v1/users/me', { key: res.stdout });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ email: 'ada@example.com', name: 'Ada', subscription_tier: 'starter' });
      expect((await call(server, 'GET', '/v1/users/me', { key: server.key })).status).toBe(401);
      expect(server.runtime.bootstrap).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('defaults to the free tier and honours VOXCTL_DATA_DIR', async () => {
    const res = await voxctl(['admin', 'users', 'create', '--email', 'free@example.com'], { VOXCTL_DATA_DIR: dataDir });
    expect(res.exitCode, res.stderr).toBe(0);
    const server = await startTestServer({ dataDir });
    try {
      expect((await call(server, 'GET', '/v1/users/me', { key: res.stdout })).body.subscription_tier).toBe('free');
    } finally {
      await server.close();
    }
  });

  it.each([
    [['--email', 'not-an-email'], /Invalid email: 'not-an-email'/],
    [['--email', 'x@example.com', '--tier', 'gold'], /Invalid tier: 'gold'/],
    [[], /--email/],
  ])('exits 2 on bad input %j, with nothing on stdout', async (flags, message) => {
    const res = await voxctl(['admin', 'users', 'create', ...flags, '--data-dir', dataDir]);
    expect(res.exitCode).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  });

  it('exits 1 when the email is taken (any case)', async () => {
    const res = await voxctl(['admin', 'users', 'create', '--email', 'ADA@example.com', '--data-dir', dataDir]);
    expect(res.exitCode).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/already exists/);
  });
});

describe('voxctl serve on an empty data dir', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-serve-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates the pro admin once, names the bootstrap-key file (0600) in a JSON line, never the key off a terminal', async () => {
    const first = await startServe(dataDir, { env: { VOXCTL_BOOTSTRAP_KEY: '' }, logLevel: 'warn' });
    let key: string;
    try {
      await first.waitForOutput(/"event":"bootstrap".*API key written to .*bootstrap-key/);
      const file = join(dataDir, 'bootstrap-key');
      key = readFileSync(file, 'utf8').trim();
      expect(key).toMatch(/^vox_[A-Za-z0-9_-]{40}$/);
      // stderr is a pipe here (a journal, a container log): the key itself is never written there.
      expect(first.output()).not.toContain(key);
      for (const line of first.output().trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const me = await call({ url: first.url }, 'GET', '/v1/users/me', { key });
      expect(me.body).toMatchObject({ email: 'admin@localhost', subscription_tier: 'pro' });
    } finally {
      await first.stop();
    }
    const second = await startServe(dataDir, { env: { VOXCTL_BOOTSTRAP_KEY: '' }, logLevel: 'warn' });
    try {
      expect((await call({ url: second.url }, 'GET', '/v1/users/me', { key })).status).toBe(200);
      // Written in the same tick as the listening line, so it would be here by now.
      expect(second.output()).not.toMatch(/API key/);
    } finally {
      await second.stop();
    }
  });

  it('uses VOXCTL_BOOTSTRAP_KEY as the admin key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-serve-'));
    const key = `vox_${'ci'.repeat(20)}`;
    const server = await startServe(dir, { env: { VOXCTL_BOOTSTRAP_KEY: key }, logLevel: 'warn' });
    try {
      await server.waitForOutput(/"event":"bootstrap"/);
      expect((await call({ url: server.url }, 'GET', '/v1/users/me', { key })).status).toBe(200);
      expect(server.output()).not.toContain(key);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
