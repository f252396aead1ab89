// One implementation, in plain JavaScript so bench/scale.mjs shares it without a build.
export { POSTGRES_INSTALL, databaseUrl, postgresBinDir, startPostgresCluster, type PostgresCluster } from '../../scripts/postgres-cluster.mjs';
