import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrl } from './postgres-cluster.js';

/** Which backend `startTestServer` and `startServe` use in this vitest project (`VOXCTL_TEST_BACKEND`). */
export const testBackend = (): 'sqlite' | 'postgres' => (process.env.VOXCTL_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite');

/** The superuser URL of the run's PostgreSQL (the global setup's cluster or VOXCTL_TEST_DATABASE_URL). */
export function postgresAdminUrl(): string {
  const url = inject('postgresAdminUrl');
  if (!url) throw new Error('No PostgreSQL for this test: it runs in the `postgres` vitest project (see vitest.config.ts)');
  return url;
}

/**
 * A new empty database on the run's PostgreSQL, dropped by the returned `drop`. `fromTemplate` copies the
 * migrated template the global setup prepared (fast: no migration, no speaker seed); without it the
 * database is empty, for tests of migration itself.
 */
export async function createTestDatabase(opts: { fromTemplate?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = postgresAdminUrl();
  const name = `${inject('postgresTemplate')}_${randomBytes(6).toString('hex')}`;
  const template = opts.fromTemplate === false ? 'template0' : inject('postgresTemplate');
  await withAdmin(admin, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  return {
    url: databaseUrl(admin, name),
    drop: () => withAdmin(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

async function withAdmin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const byDataDir = new Map<string, Promise<string>>();

/**
 * What a test server of this project is started with: nothing on SQLite; on PostgreSQL the URL of a
 * database of its own — the same one each time the same data dir starts again (restart and crash tests
 * find their state), copied from the migrated template on first use.
 */
export async function backendFor(dataDir: string): Promise<{ databaseUrl?: string; replayTransactions?: boolean }> {
  if (testBackend() !== 'postgres') return {};
  let url = byDataDir.get(dataDir);
  if (!url) {
    url = createTestDatabase().then((d) => d.url);
    byDataDir.set(dataDir, url);
  }
  // The PostgreSQL pass rehearses every transaction (vitest.config.ts sets the variable; the server reads no environment).
  return { databaseUrl: await url, ...(process.env.VOXCTL_TEST_REPLAY_TRANSACTIONS === '1' ? { replayTransactions: true } : {}) };
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
    postgresTemplate: string;
  }
}
