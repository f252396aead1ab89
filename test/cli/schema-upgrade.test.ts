import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve-process.js';
import { walkApiFamilies } from '../helpers/api-families.js';
import { OLD_SQLITE_KEY, writeOldSqliteDatabase } from '../helpers/old-schemas.js';
import { loadSqliteDriver } from '../../src/server/storage/sqlite-driver.js';
import { PUBLISHED_CHECKSUMS } from '../../src/server/storage/migrations/checksums.js';
import { NEXT_MIGRATIONS } from '../../src/server/storage/migrations/next/index.js';
import { readSqlFiles, SQL_MIGRATIONS_DIR } from '../../src/server/storage/migrations/known.js';

// SQLite numbers the next/ migrations after its six legacy ones.
// After the closed lists come the files of migrations/sql/, numbered on.
const AFTER_LEGACY = [...NEXT_MIGRATIONS.map((m) => m.name), ...readSqlFiles(SQL_MIGRATIONS_DIR).map((f) => f.name)];
const NEXT_SQLITE = AFTER_LEGACY.map((name, i) => ({ version: 7 + i, name }));

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'voxctl.js');
const voxctl = (args: string[]) => execa('node', [bin, ...args], { cwd: root, reject: false, timeout: 60_000, env: { FORCE_COLOR: '0', NO_COLOR: '1', VOXCTL_DATABASE_URL: '' } });

const dirs: string[] = [];
const oldDataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-upgrade-'));
  dirs.push(dir);
  writeOldSqliteDatabase(join(dir, 'voxctl.db'));
  return dir;
};
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) execSync('npm run build --silent', { cwd: root, stdio: 'ignore' });
});

const LATEST = Math.max(...Object.keys(PUBLISHED_CHECKSUMS.sqlite).map(Number));

function tracking(file: string): { version: number; name: string; checksum: string }[] {
  const raw = new (loadSqliteDriver())(file, { readonly: true });
  try {
    return raw.prepare('SELECT version, name, checksum FROM voxctl_schema_migrations ORDER BY version').all() as { version: number; name: string; checksum: string }[];
  } finally {
    raw.close();
  }
}

function tamper(file: string, version: number): void {
  const raw = new (loadSqliteDriver())(file);
  raw.prepare("UPDATE voxctl_schema_migrations SET checksum = 'f00d' WHERE version = ?").run(version);
  raw.close();
}

describe('upgrading a SQLite data dir made by an earlier landed commit (DESIGN §14.1)', () => {
  it('serve on the schema of 0859a53 (version 5) migrates it and every API family answers, none with a 500', async () => {
    const dir = oldDataDir();
    const server = await startServe(dir, { args: ['--allow-private-audio-urls', '--workers', '1'] });
    try {
      const calls = await walkApiFamilies(server, OLD_SQLITE_KEY);
      expect(calls.filter((c) => c.status >= 500)).toEqual([]);
      const status = (request: string) => calls.filter((c) => c.request === request).map((c) => c.status);
      expect(status('GET /v1/users/me')).toEqual([200, 200, 401]);
      expect(status('GET signed audio URL')).toEqual([200]);
      expect(status('POST /v1/tts/batch')).toEqual([201]);
      expect(calls.find((c) => c.request === 'batch outcome')?.text).toBe('completed');
      expect(status('POST /v1/evaluations')).toEqual([201]);
      expect(new Set(calls.map((c) => c.family))).toEqual(new Set(['health', 'users', 'keys', 'speakers', 'tts', 'audio', 'jobs', 'stt', 'datasets', 'billing', 'evaluations']));
    } finally {
      await server.stop();
    }
    const rows = tracking(join(dir, 'voxctl.db'));
    expect(rows.map((r) => [r.version, r.checksum])).toEqual(Object.entries(PUBLISHED_CHECKSUMS.sqlite).map(([v, c]) => [Number(v), c]));
  });

  it('a data dir of the scaffold (user_version 3, no tables: migrations 1-3 were placeholders) is migrated from the start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-upgrade-'));
    dirs.push(dir);
    const raw = new (loadSqliteDriver())(join(dir, 'voxctl.db'));
    raw.pragma('user_version = 3');
    raw.close();
    const res = await voxctl(['admin', 'migrate', '--data-dir', dir]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toContain('Applied migration 1 (core)');
    expect(tracking(join(dir, 'voxctl.db')).map((r) => r.version)).toEqual(Array.from({ length: LATEST }, (_, i) => i + 1));
  });

  it('refuses to start on a migration changed after it was applied (exit 1, the exact message)', async () => {
    const dir = oldDataDir();
    expect((await voxctl(['admin', 'migrate', '--data-dir', dir])).exitCode).toBe(0);
    tamper(join(dir, 'voxctl.db'), 4);
    const res = await execa('node', [bin, 'serve', '--port', '0', '--data-dir', dir, '--log-level', 'silent'], {
      cwd: root,
      reject: false,
      timeout: 60_000,
      env: { FORCE_COLOR: '0', NO_COLOR: '1', VOXCTL_DATABASE_URL: '' },
    });
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain('The service did not start: Migration 4 (sessions-reservations) was changed after it was applied');
    expect(res.stderr).not.toMatch(/listening/);
  });
});

describe('voxctl admin schema and admin migrate on SQLite', () => {
  it('schema lists applied and pending migrations; migrate applies the pending ones without a server', async () => {
    const dir = oldDataDir();
    const before = await voxctl(['admin', 'schema', '--data-dir', dir, '--json']);
    expect(before.exitCode, before.stderr).toBe(0);
    const status = JSON.parse(before.stdout) as { dialect: string; applied: { version: number; checksum: string; applied_at: string | null }[]; pending: { version: number; name: string }[] };
    expect(status.dialect).toBe('sqlite');
    expect(status.applied.map((m) => [m.version, m.checksum])).toEqual([1, 2, 3, 4, 5].map((v) => [v, 'ok']));
    expect(status.pending).toEqual([{ version: 6, name: 'leases' }, ...NEXT_SQLITE]);
    // Looking changes nothing.
    expect((await voxctl(['admin', 'schema', '--data-dir', dir, '--json'])).stdout).toBe(before.stdout);

    const migrated = await voxctl(['admin', 'migrate', '--data-dir', dir]);
    expect(migrated.exitCode, migrated.stderr).toBe(0);
    expect(migrated.stdout).toBe(
      ['Applied migration 6 (leases)', ...NEXT_SQLITE.map((m) => `Applied migration ${m.version} (${m.name})`), `Schema is at version ${LATEST}`].join('\n'),
    );
    const again = await voxctl(['admin', 'migrate', '--data-dir', dir]);
    expect(again.stdout).toBe(`Nothing to apply: schema is at version ${LATEST}`);

    const table = await voxctl(['admin', 'schema', '--data-dir', dir]);
    expect(table.stdout.split('\n')[0]).toMatch(/^VERSION\s+NAME\s+APPLIED_AT\s+CHECKSUM$/);
    expect(table.stdout).toMatch(/^7\s+schema-repair\s+\d{4}-\d\d-\d\dT\S+Z\s+ok$/m);
    expect(table.stdout).not.toMatch(/pending/);
  });

  it('a changed migration shows as changed, and migrate exits 1 naming it', async () => {
    const dir = oldDataDir();
    await voxctl(['admin', 'migrate', '--data-dir', dir]);
    tamper(join(dir, 'voxctl.db'), 7);
    const schema = JSON.parse((await voxctl(['admin', 'schema', '--data-dir', dir, '--json'])).stdout) as { applied: { version: number; checksum: string }[] };
    expect(schema.applied.find((m) => m.version === 7)?.checksum).toBe('changed');
    expect(schema.applied.filter((m) => m.checksum !== 'ok').map((m) => m.version)).toEqual([7]);
    const res = await voxctl(['admin', 'migrate', '--data-dir', dir]);
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain('Migration 7 (schema-repair) was changed after it was applied');
  });

  it('schema on a data dir without a database shows every migration pending and creates nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-upgrade-'));
    dirs.push(dir);
    const res = await voxctl(['admin', 'schema', '--data-dir', dir, '--json']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect((JSON.parse(res.stdout) as { pending: unknown[] }).pending).toHaveLength(LATEST);
    expect(existsSync(join(dir, 'voxctl.db'))).toBe(false);
  });
});
