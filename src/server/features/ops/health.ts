import type { Db } from '../../storage/db.js';
import type { Health } from '../../../shared/schemas/system.js';
import { COMMIT, VERSION } from '../../../shared/version.js';
import { queueDepth } from '../../storage/repositories/leases.js';
import { inspectSchema, schemaState } from '../../storage/migrations/runner.js';

type SttState = 'ok' | 'unavailable' | 'not_configured';

/** `/health` (DESIGN §4.4, §9.6): degraded (503) when the database cannot answer; the instance and its shared queue. */
export async function checkHealth(opts: {
  db: Db;
  startedAt: Date;
  now: Date;
  tts?: { status(): 'ok' | 'unavailable' };
  sttHealth?: () => Record<string, SttState>;
  instanceId: string;
  /**
   * The queue and schema of the last answer that reached the database: shown while it cannot be reached,
   * instead of zeros (the items in progress during an outage are still there, DESIGN §14.10).
   */
  previous?: Pick<Health, 'queue' | 'schema'>;
}): Promise<{ statusCode: 200 | 503; body: Health }> {
  let database: 'ok' | 'unavailable' = 'ok';
  let queue = opts.previous?.queue ?? { pending: 0, processing: 0 };
  let schema = opts.previous?.schema ?? 'current';
  try {
    // The queue depth doubles as the database check: an answer means the database works.
    const [items, syntheses, state] = await Promise.all([
      queueDepth(opts.db, 'job_items'),
      queueDepth(opts.db, 'evaluation_syntheses'),
      inspectSchema(opts.db).then(schemaState),
    ]);
    queue = { pending: items.pending + syntheses.pending, processing: items.processing + syntheses.processing };
    // An incompatible newer schema makes /health/ready 503; /health says `current` or `newer_compatible` (DESIGN §14.13).
    schema = state === 'newer_compatible' ? 'newer_compatible' : 'current';
  } catch {
    database = 'unavailable';
  }
  let tts: 'ok' | 'unavailable' = 'unavailable';
  try {
    tts = opts.tts?.status() ?? 'unavailable';
  } catch {
    tts = 'unavailable';
  }
  let stt: Record<string, SttState> = {};
  try {
    stt = opts.sttHealth?.() ?? {};
  } catch {
    stt = {};
  }
  const ok = database === 'ok';
  return {
    statusCode: ok ? 200 : 503,
    body: {
      status: ok ? 'ok' : 'degraded',
      version: VERSION,
      commit: COMMIT,
      uptime_seconds: Math.max(0, Math.round((opts.now.getTime() - opts.startedAt.getTime()) / 1000)),
      instance_id: opts.instanceId,
      queue,
      schema,
      checks: { database, tts, stt },
    },
  };
}

/**
 * `/health/ready` (DESIGN §14.2): ready when the database answers and the engines are up; else the reason,
 * for a load balancer to take this instance out of rotation until it is.
 */
export async function checkReadiness(opts: { db: Db; tts?: { status(): 'ok' | 'unavailable' }; schemaProblem?: () => Promise<string | undefined> }): Promise<
  { ready: true } | { ready: false; reason: string }
> {
  try {
    await opts.db.value('SELECT 1');
  } catch (err) {
    return { ready: false, reason: `database unavailable: ${err instanceof Error ? err.message : String(err)}` };
  }
  const schema = await opts.schemaProblem?.().catch((err: unknown) => `schema unknown: ${err instanceof Error ? err.message : String(err)}`);
  if (schema) return { ready: false, reason: schema };
  let tts: 'ok' | 'unavailable' = 'unavailable';
  try {
    tts = opts.tts?.status() ?? 'unavailable';
  } catch {
    tts = 'unavailable';
  }
  if (tts !== 'ok') return { ready: false, reason: 'speech engines not loaded' };
  return { ready: true };
}

/** Why the database's schema is not the one this voxctl runs on (pending, newer or changed migrations), or undefined. */
export async function schemaProblem(db: Db): Promise<string | undefined> {
  const status = await inspectSchema(db);
  // Newer migrations all recorded compatible leave this instance ready (DESIGN §14.13).
  const newer = status.applied.find((m) => m.checksum === 'unknown' && m.compatible !== true);
  if (newer) return `schema is newer than this voxctl (migration ${newer.version} ${newer.name})`;
  const changed = status.applied.find((m) => m.checksum === 'changed');
  if (changed) return `Migration ${changed.version} (${changed.name}) was changed after it was applied`;
  if (status.pending.length > 0) return `schema not current: ${status.pending.map((m) => `${m.version} (${m.name})`).join(', ')} pending`;
  return undefined;
}
