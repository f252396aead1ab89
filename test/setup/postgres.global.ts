import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { databaseUrl, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { migratePostgres } from '../../src/server/storage/migrations/migrate-postgres.js';

const TEMPLATE = 'voxctl_template';

/**
 * Global setup of the `postgres` project: one PostgreSQL for the run — the one VOXCTL_TEST_DATABASE_URL
 * names (a superuser URL), else a throw-away cluster — with a migrated template database each test server
 * copies. Never skips: a missing PostgreSQL fails the run with the install command.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
  project.provide('postgresAdminUrl', adminUrl);
  project.provide('postgresTemplate', template);
  return async () => {
    if (cluster) return cluster.stop();
    // A server the run did not start keeps running: drop the template and every database copied from it
    // (their names start with the template's).
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      const { rows } = await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${template}%`]);
      for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  };
}
