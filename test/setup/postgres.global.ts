import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { databaseUrl, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { migratePostgres } from '../../src/server/storage/migrations/migrate-postgres.js';

const TEMPLATE = 'voxctl_template';

/**
 * Global setup of the PostgreSQL projects: one PostgreSQL for the run — the one VOXCTL_TEST_DATABASE_URL
 * names (a superuser URL), else a throw-away cluster — with a migrated template database each test server
 * copies. Never skips: a missing PostgreSQL fails the run with the install command.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The `postgres` and `postgres-serial` projects share one PostgreSQL: the first to start makes it, the
  // last to finish stops it (global setups run in vitest's one main process).
  const shared = ((globalThis as { [SHARED]?: Shared })[SHARED] ??= { users: 0 });
  shared.started ??= startPostgres();
  shared.users += 1;
  const { adminUrl, template, stop } = await shared.started;
  project.provide('postgresAdminUrl', adminUrl);
  project.provide('postgresTemplate', template);
  return async () => {
    shared.users -= 1;
    if (shared.users === 0) {
      shared.started = undefined;
      await stop();
    }
  };
}

const SHARED = Symbol.for('voxctl.test.postgres');
interface Started {
  adminUrl: string;
  template: string;
  stop(): Promise<void>;
}
interface Shared {
  users: number;
  started?: Promise<Started>;
}

/** The run's PostgreSQL (VOXCTL_TEST_DATABASE_URL's, else a throw-away cluster) and its migrated template. */
async function startPostgres(): Promise<Started> {
  let cluster: PostgresCluster | undefined;
  let adminUrl = process.env.VOXCTL_TEST_DATABASE_URL;
  if (!adminUrl) {
    cluster = await startPostgresCluster();
    adminUrl = cluster.adminUrl;
  }
  const template = `${TEMPLATE}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${template} TEMPLATE template0`);
  } finally {
    await admin.end();
  }
  await migratePostgres(databaseUrl(adminUrl, template));
  const url = adminUrl;
  return { adminUrl: url, template, stop: () => stopPostgres(cluster, url, template) };
}

/**
 * Stops the cluster the run started; a server the run did not start keeps running: the template and every
 * database copied from it (their names start with the template's) are dropped.
 */
async function stopPostgres(cluster: PostgresCluster | undefined, adminUrl: string, template: string): Promise<void> {
  if (cluster) return cluster.stop();
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${template}%`]);
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
  } finally {
    await c.end();
  }
}
