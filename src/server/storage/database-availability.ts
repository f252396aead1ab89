import type { Db } from './db.js';
import type { Logger } from '../logger.js';

// Node's socket errors and PostgreSQL's connection-exception (08…) and operator-intervention (57P0x) codes:
// the database is away, not the request wrong.
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', '57P01', '57P02', '57P03']);
const CONNECTION_MESSAGES = /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed|the database system is (starting up|shutting down)/i;

/** True when `err` (or one of its causes) says the database cannot be reached, as opposed to a bad query. */
export function isConnectionFailure(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
    if (CONNECTION_MESSAGES.test(e.message)) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isConnectionFailure(inner))) return true;
  }
  return false;
}

/** The service's view of its database between requests (DESIGN §14.3). */
export interface DatabaseAvailability {
  /**
   * Reports a failure seen while serving or working; true when it is the database being away (then the
   * caller answers 503, and the outage is logged once however many requests hit it).
   */
  report(err: unknown): boolean;
  /** True from the first connection failure until a probe reaches the database again. */
  isDown(): boolean;
  close(): void;
}

/**
 * Tracks outages: the first connection failure logs `database_unavailable` and starts a probe every
 * `probeMs`; the first probe that answers logs `database_recovered` with the outage's length. Nothing is
 * logged per request in between — a stopped cluster must not flood the log.
 */
export function createDatabaseAvailability(deps: { db: Db; logger: Logger; probeMs?: number; now?: () => number }): DatabaseAvailability {
  const now = deps.now ?? Date.now;
  let downSince: number | undefined;
  let probe: NodeJS.Timeout | undefined;
  let closed = false;
  const check = async (): Promise<void> => {
    try {
      await deps.db.value('SELECT 1');
    } catch {
      return;
    }
    if (downSince === undefined) return;
    deps.logger.info({ event: 'database_recovered', outage_seconds: Math.round((now() - downSince) / 100) / 10 }, 'the database answers again');
    downSince = undefined;
    clearInterval(probe);
    probe = undefined;
  };
  return {
    report(err) {
      if (!isConnectionFailure(err)) return false;
      if (downSince === undefined && !closed) {
        downSince = now();
        deps.logger.error({ event: 'database_unavailable', err: { message: err instanceof Error ? err.message : String(err) } }, 'the database cannot be reached; API requests answer 503 until it is back');
        probe = setInterval(() => void check(), deps.probeMs ?? 1_000);
        probe.unref();
      }
      return true;
    },
    isDown: () => downSince !== undefined,
    close() {
      closed = true;
      clearInterval(probe);
    },
  };
}
