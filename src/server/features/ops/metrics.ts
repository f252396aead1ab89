import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../../storage/db.js';
import { queueDepth } from '../../storage/repositories/leases.js';
import { COMMIT, VERSION } from '../../../shared/version.js';

/** The connection counts of a pg pool (the PostgreSQL seam exposes its pool; SQLite has none). */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** What a work item's end was, for `voxctl_work_items_total{kind,outcome}`. */
export type WorkOutcome = 'succeeded' | 'failed' | 'retried';

/** The service's Prometheus metrics (DESIGN §14.4); one registry per runtime, never prom-client's global one. */
export interface Metrics {
  readonly registry: Registry;
  /** Counts one answered request under its route pattern (never the raw URL: ids would explode the labels). */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** Counts one finished work item of a queue. */
  workItem(kind: string, outcome: WorkOutcome): void;
  /** Counts `count` items of a queue taken over from a dead or stalled instance (DESIGN §14.11). */
  leaseTakeovers(kind: string, count: number): void;
  /** The exposition text. */
  render(): Promise<string>;
  readonly contentType: string;
}

/**
 * Node.js defaults that `promtool check metrics` rejects (gauges named `_total`): left out, since
 * `nodejs_active_handles` and `nodejs_active_requests` say the same without the suffix (DESIGN §14.17).
 */
const REJECTED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** The queues whose depth is a gauge, by the kind label they carry. */
const QUEUES = { batch_item: 'job_items', evaluation_synthesis: 'evaluation_syntheses' } as const;

/**
 * Builds the metrics of one runtime: HTTP counts and latency, queue depth and TTS workers read when
 * scraped (so an idle service does no work for them), the PostgreSQL pool, and Node's process defaults.
 */
export function createMetrics(deps: { db: Db; busyWorkers?: () => number; databaseUp?: () => boolean }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of REJECTED_DEFAULTS) registry.removeSingleMetric(name);
  // Which build answers, as a label set on a constant 1 (the usual `_build_info` idiom): joinable onto any series.
  new Gauge({
    name: 'voxctl_build_info',
    help: 'The version and commit of this build (value 1)',
    labelNames: ['version', 'commit'] as const,
    registers: [registry],
  }).set({ version: VERSION, commit: COMMIT ?? 'unknown' }, 1);
  new Gauge({
    name: 'voxctl_db_up',
    help: 'Whether the last probe reached the database (1) or not (0)',
    registers: [registry],
    collect() {
      this.set(deps.databaseUp?.() === false ? 0 : 1);
    },
  });
  const requests = new Counter({
    name: 'voxctl_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'voxctl_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const work = new Counter({
    name: 'voxctl_work_items_total',
    help: 'Queued work items finished by this instance, by kind and outcome',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  const takeovers = new Counter({
    name: 'voxctl_lease_takeovers_total',
    help: 'Queued work items this instance took over from a dead or stalled instance, by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  // Exported from start: a series that appears only at the first takeover cannot be alerted on by rate().
  for (const kind of Object.keys(QUEUES)) takeovers.inc({ kind }, 0);
  new Gauge({
    name: 'voxctl_queue_items',
    help: 'Items in the shared work queues, by kind and state',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [kind, table] of Object.entries(QUEUES)) {
        try {
          const depth = await queueDepth(deps.db, table);
          this.set({ kind, state: 'pending' }, depth.pending);
          this.set({ kind, state: 'processing' }, depth.processing);
        } catch {
          // The database is away: the gauge goes absent for this scrape rather than failing the scrape.
        }
      }
    },
  });
  new Gauge({
    name: 'voxctl_tts_busy_workers',
    help: 'TTS engine worker threads synthesising right now',
    registers: [registry],
    collect() {
      this.set(deps.busyWorkers?.() ?? 0);
    },
  });
  const pool = (deps.db as Partial<{ pool: PoolCounts }>).pool;
  if (pool) {
    new Gauge({
      name: 'voxctl_db_pool_connections',
      help: 'PostgreSQL pool connections by state (idle, busy, waiting clients)',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }
  return {
    registry,
    contentType: registry.contentType,
    observeRequest(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
    },
    workItem(kind, outcome) {
      work.inc({ kind, outcome });
    },
    leaseTakeovers(kind, count) {
      takeovers.inc({ kind }, count);
    },
    render: () => registry.metrics(),
  };
}
