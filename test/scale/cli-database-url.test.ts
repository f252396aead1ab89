import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import { cli, createSandbox } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { startServe } from '../helpers/serve-process.js';
import { join } from 'node:path';

// The CLI's side of DESIGN §9.1: --database-url / VOXCTL_DATABASE_URL for `serve` and `admin users create`.
const sandbox = createSandbox();
afterAll(() => sandbox.cleanup());

describe('voxctl serve --database-url and friends', () => {
  it('refuses a URL that is not PostgreSQL with exit 2, without repeating it', async () => {
    const r = await cli(sandbox, ['serve', '--port', '0', '--database-url', 'mysql://root:hunter2secret@db/voxctl']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Invalid database URL: unsupported scheme "mysql" (expected postgres://)');
    expect(r.stderr).not.toContain('hunter2secret');
    const env = await cli(sandbox, ['serve', '--port', '0'], { env: { VOXCTL_DATABASE_URL: 'not a url' } });
    expect(env.exitCode).toBe(2);
    expect(env.stderr).toContain('Invalid database URL: expected postgres://user:password@host:5432/database');
  });

  it('refuses an audio store without a shared database, and an endpoint without a store', async () => {
    const store = await cli(sandbox, ['serve', '--port', '0', '--audio-store', 's3://bucket/prefix']);
    expect(store.exitCode).toBe(2);
    expect(store.stderr).toContain('--audio-store needs --database-url (with SQLite, audio lives in the data dir)');
    const endpoint = await cli(sandbox, ['serve', '--port', '0', '--database-url', 'postgres://u@h/d', '--s3-endpoint', 'http://127.0.0.1:9000']);
    expect(endpoint.exitCode).toBe(2);
    expect(endpoint.stderr).toContain('--s3-endpoint needs --audio-store s3://bucket/prefix');
    const bad = await cli(sandbox, ['serve', '--port', '0', '--database-url', 'postgres://u@h/d', '--audio-store', 'gs://bucket']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("Invalid --audio-store: expected s3://bucket/prefix, got 'gs://bucket'");
  });

  it('serve status names the shared database with its password masked', async () => {
    const database = await createTestDatabase();
    const dataDir = join(sandbox.root, 'status-data');
    const server = await startServe(dataDir, { env: { VOXCTL_DATABASE_URL: database.url }, args: ['--workers', '0'] });
    try {
      const status = await cli(sandbox, ['serve', 'status', '--data-dir', dataDir, '--json']);
      expect(status.exitCode).toBe(0);
      const body = JSON.parse(status.stdout) as { running: boolean; database: string };
      expect(body.running).toBe(true);
      const shown = new URL(database.url);
      shown.password = '***';
      expect(body.database).toBe(shown.toString());
      expect(status.stdout).not.toContain(decodeURIComponent(new URL(database.url).password));
    } finally {
      await server.stop();
      await database.drop();
    }
  });

  it('admin users create writes to the shared PostgreSQL (flag or VOXCTL_DATABASE_URL); a wrong password is masked', async () => {
    const database = await createTestDatabase();
    const db = createPostgresDb({ connectionString: database.url, max: 2 });
    try {
      const byFlag = await cli(sandbox, ['admin', 'users', 'create', '--email', 'Ops@Example.com', '--tier', 'pro', '--database-url', database.url]);
      expect(byFlag.exitCode).toBe(0);
      expect(byFlag.stdout).toMatch(/^vox_[A-Za-z0-9_-]{40}\n$/);
      const byEnv = await cli(sandbox, ['admin', 'users', 'create', '--email', 'ci@example.com'], { env: { VOXCTL_DATABASE_URL: database.url } });
      expect(byEnv.exitCode).toBe(0);
      expect(await db.column('SELECT email FROM users ORDER BY email')).toEqual(['Ops@Example.com', 'ci@example.com']);
      // Case-insensitive uniqueness holds on PostgreSQL too.
      const again = await cli(sandbox, ['admin', 'users', 'create', '--email', 'ops@example.com', '--database-url', database.url]);
      expect(again.exitCode).toBe(1);
      const wrong = new URL(database.url);
      wrong.password = 'definitely-not-the-password';
      const refused = await cli(sandbox, ['admin', 'users', 'create', '--email', 'x@example.com', '--database-url', wrong.toString()]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain('Cannot open the database: PostgreSQL at postgres://');
      expect(refused.stderr).toContain(':***@127.0.0.1');
      expect(refused.stderr).not.toContain('definitely-not-the-password');
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
