import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/postgres.js';
import { startServe } from '../helpers/serve-process.js';
import { TEST_KEY } from '../helpers/server.js';
import { walkApiFamilies } from '../helpers/api-families.js';
import { buildOldPostgresDatabase, OLD_POSTGRES_002 } from '../helpers/old-schemas.js';
import { HISTORICAL_CHECKSUMS, PUBLISHED_CHECKSUMS } from '../../src/server/storage/migrations/checksums.js';
import { migratePostgres } from '../../src/server/storage/migrations/migrate-postgres.js';
import { NEXT_MIGRATIONS } from '../../src/server/storage/migrations/next/index.js';
import { readSqlFiles, SQL_MIGRATIONS_DIR } from '../../src/server/storage/migrations/known.js';

// PostgreSQL numbers the next/ migrations after its two legacy ones.
// After the closed lists come the files of migrations/sql/, numbered on.
const AFTER_LEGACY = [...NEXT_MIGRATIONS.map((m) => m.name), ...readSqlFiles(SQL_MIGRATIONS_DIR).map((f) => f.name)];
const NEXT_PG = AFTER_LEGACY.map((name, i) => ({ version: 3 + i, name }));
const LATEST_PG = 2 + AFTER_LEGACY.length;

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'voxctl.js');
const voxctl = (args: string[], url: string) =>
  execa('node', [bin, ...args], { cwd: root, reject: false, timeout: 60_000, env: { FORCE_COLOR: '0', NO_COLOR: '1', VOXCTL_DATABASE_URL: url } });

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0)) await c();
});
beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) execSync('npm run build --silent', { cwd: root, stdio: 'ignore' });
});

async function oldDatabase(commit: (typeof OLD_POSTGRES_002)[number]): Promise<string> {
  const db = await createTestDatabase({ fromTemplate: false });
  cleanups.push(db.drop);
  await buildOldPostgresDatabase(db.url, commit);
  return db.url;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, values)).rows;
  } finally {
    await c.end();
  }
}

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-pg-upgrade-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const CHANGED = (v: number, name: string) => `Migration ${v} (${name}) was changed after it was applied`;

describe('upgrading a PostgreSQL database made by an earlier landed commit (DESIGN §14.1, issue 24.1)', () => {
  it.each(OLD_POSTGRES_002)('migration 2 as of %s: serve upgrades it and every API family answers, none with a 500', async (commit) => {
    const url = await oldDatabase(commit);
    const server = await startServe(tempDir(), { env: { VOXCTL_DATABASE_URL: url }, args: ['--allow-private-audio-urls', '--workers', '1'] });
    try {
      const calls = await walkApiFamilies(server, TEST_KEY);
      expect(calls.filter((c) => c.status >= 500)).toEqual([]);
      const status = (request: string) => calls.filter((c) => c.request === request).map((c) => c.status);
      // The bootstrap key, the new key, then the new key once revoked (at once: the cache epoch's triggers).
      expect(status('GET /v1/users/me')).toEqual([200, 200, 401]);
      expect(status('GET signed audio URL')).toEqual([200]);
      expect(calls.find((c) => c.request === 'batch outcome')?.text).toBe('completed');
      expect(status('POST /v1/evaluations')).toEqual([201]);
    } finally {
      await server.stop();
    }
    const rows = await query<{ version: number; name: string; checksum: string }>(url, 'SELECT version, name, checksum FROM voxctl_schema_migrations ORDER BY version');
    // Version 2's text is unknowable from the database: the back-fill records the current one, which schema-repair made true.
    expect(rows.map((r) => [r.version, r.checksum])).toEqual(Object.entries(PUBLISHED_CHECKSUMS.postgres).map(([v, c]) => [Number(v), c]));
    const [col] = await query<{ n: string }>(url, "SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'rate_windows' AND column_name = 'last_granted'");
    expect(Number(col!.n)).toBe(1);
  });

  it('a database that recorded an earlier text of migration 2 upgrades instead of being refused', async () => {
    const url = await oldDatabase('21aa4a4');
    await migratePostgres(url);
    await query(url, 'UPDATE voxctl_schema_migrations SET checksum = $1 WHERE version = 2', [HISTORICAL_CHECKSUMS.postgres[2]![1]]);
    const status = await migratePostgres(url);
    expect(status.pending).toEqual([]);
    expect(status.applied.map((m) => m.checksum)).toEqual(status.applied.map(() => 'ok'));
  });

  it('instances starting together on an old database migrate it once', async () => {
    const url = await oldDatabase('229f8ec');
    await Promise.all(Array.from({ length: 3 }, () => migratePostgres(url)));
    const rows = await query<{ version: number }>(url, 'SELECT version FROM voxctl_schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: LATEST_PG }, (_, i) => i + 1));
  });

  it('refuses to start on a migration changed after it was applied: exit 1 and the exact message', async () => {
    const url = await oldDatabase('21aa4a4');
    expect((await voxctl(['admin', 'migrate'], url)).exitCode).toBe(0);
    await query(url, "UPDATE voxctl_schema_migrations SET checksum = 'f00d' WHERE version = 2");
    const res = await execa('node', [bin, 'serve', '--port', '0', '--data-dir', tempDir(), '--log-level', 'silent'], {
      cwd: root,
      reject: false,
      timeout: 60_000,
      env: { FORCE_COLOR: '0', NO_COLOR: '1', VOXCTL_DATABASE_URL: url, VOXCTL_BOOTSTRAP_KEY: TEST_KEY },
    });
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain(`The service did not start: ${CHANGED(2, 'scale-out')}`);
    const migrate = await voxctl(['admin', 'migrate'], url);
    expect(migrate.exitCode).toBe(1);
    expect(migrate.stderr).toContain(CHANGED(2, 'scale-out'));
  });
});

describe('voxctl admin schema and admin migrate on PostgreSQL', () => {
  it('an old database: schema shows 1-2 applied and the next ones pending; migrate applies them with their checksums; a changed one shows', async () => {
    const url = await oldDatabase('21aa4a4');
    const before = await voxctl(['admin', 'schema', '--database-url', url, '--json'], '');
    expect(before.exitCode, before.stderr).toBe(0);
    const status = JSON.parse(before.stdout) as { dialect: string; applied: { version: number; name: string; checksum: string; applied_at: string }[]; pending: unknown[] };
    expect(status.dialect).toBe('postgres');
    expect(status.applied.map((m) => [m.version, m.name, m.checksum])).toEqual([
      [1, 'initial', 'ok'],
      [2, 'scale-out', 'ok'],
    ]);
    expect(status.applied[0]!.applied_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(status.pending).toEqual(NEXT_PG);
    expect(status.pending[0]).toEqual({ version: 3, name: 'schema-repair' });
    // Looking changed nothing: the old table still has no checksum column.
    expect(await query(url, "SELECT 1 FROM information_schema.columns WHERE table_name = 'voxctl_schema_migrations' AND column_name = 'checksum'")).toEqual([]);

    const migrated = await voxctl(['admin', 'migrate', '--database-url', url], '');
    expect(migrated.exitCode, migrated.stderr).toBe(0);
    expect(migrated.stdout).toBe([...NEXT_PG.map((m) => `Applied migration ${m.version} (${m.name})`), `Schema is at version ${LATEST_PG}`].join('\n'));

    await query(url, "UPDATE voxctl_schema_migrations SET checksum = 'f00d' WHERE version = 3");
    const after = JSON.parse((await voxctl(['admin', 'schema', '--json'], url)).stdout) as { applied: { version: number; checksum: string }[] };
    expect(after.applied.map((m) => m.checksum)).toEqual(['ok', 'ok', 'changed', ...NEXT_PG.slice(1).map(() => 'ok')]);
    const table = await voxctl(['admin', 'schema'], url);
    expect(table.stdout).toMatch(/^3\s+schema-repair\s+\S+\s+changed$/m);
  });
});
