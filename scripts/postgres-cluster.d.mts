/** A PostgreSQL server of the test run: its superuser URL (database `postgres`) and how to stop it. */
export interface PostgresCluster {
  adminUrl: string;
  /** Stops the server but keeps its data: an outage until `resume()`. */
  pause(): Promise<void>;
  /** Starts a paused server again on the same port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}
/** The exact command that installs the server binaries the tests start (DESIGN §9.7). */
export const POSTGRES_INSTALL: string;
/** The folder with `initdb` and `pg_ctl`, or undefined when none is installed. */
export function postgresBinDir(): string | undefined;
/** Starts a throw-away PostgreSQL on a free loopback port (as an unprivileged account under root). */
export function startPostgresCluster(): Promise<PostgresCluster>;
/** The connection URL of database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string;
