import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import type { ServerOptions } from './options.js';
import { openSqliteDatabase, type Db } from './storage/db.js';
import { loadOrCreateSecret } from './secret.js';
import type { TtsPool } from './engines/tts/types.js';
import { createTtsPool } from './engines/tts/pool.js';
import { createRateLimiter, type RateLimiter } from './services/rate-limiter.js';
import { bootstrapIfEmpty, type BootstrapResult } from './services/bootstrap.js';
import { refundStaleReservations } from './services/reservations.js';
import type { JobRunner } from './jobs/runner.js';
import { createBatchRunner } from './jobs/index.js';
import type { EvaluationRunner } from './evaluations/runner.js';
import { createEvaluationRunnerFor } from './evaluations/index.js';
import { createLogger, type Logger } from './logger.js';
import { createSampleProvider, type SampleProvider } from './services/samples.js';
import { createFacetsCache } from './services/speakers.js';
import type { SpeakerFacets } from '../shared/schemas/speakers.js';
import { loadServerConfig, type ServerConfig } from './config.js';
import { createSttRegistry, sttHealthOf, type SttRegistry } from './engines/stt/registry.js';
import type { AudioFetchHooks } from './services/audio-fetch.js';
import { createUrlSigner, type UrlSigner } from './services/audio-urls.js';

/**
 * The composition root: every long-lived collaborator of the service, built once per server.
 * Routes reach them as `app.runtime`; tests build a runtime on a temp data dir.
 */
export interface Runtime {
  options: ServerOptions;
  db: Db;
  clock: Clock;
  /** The server's one logger (pino, Authorization and keys redacted): Fastify's and the runners'. */
  logger: Logger;
  /** HMAC key of the server (`{dataDir}/secret`, 0600): URL signatures, billing portal CSRF tokens. */
  secret: Buffer;
  /** The one signer of keyless URLs (audio files, evaluation reports) under `secret`. */
  urls: UrlSigner;
  /** The TTS worker pool (a test may swap it: the runners read it per item). */
  tts: TtsPool;
  /** Speaker samples, made on first request (concurrent first requests share one synthesis). */
  samples: SampleProvider;
  /** The catalogue's facets, counted once. */
  speakerFacets: () => Promise<SpeakerFacets>;
  /** When the runtime was built (health's uptime). */
  startedAt: Date;
  /** Request counters: per-key/IP windows and requests today (day counts persisted; flushed on close). */
  rateLimiter: RateLimiter;
  /** Set on the first start of an empty data dir: the admin key, for `voxctl serve` to print once. */
  bootstrap?: BootstrapResult;
  /** State of each STT provider for /health. */
  sttHealth: () => Record<string, 'ok' | 'unavailable' | 'not_configured'>;
  /** The batch-job runner over the SQLite queue (wake it after queueing a job). */
  jobs: JobRunner;
  /** The evaluation runner over its SQLite queue (wake it after creating an evaluation). */
  evaluations: EvaluationRunner;
  /** The validated server config file (STT provider bindings). */
  config: ServerConfig;
  /** STT providers: the nine spec tokens as bound by the config, plus local-sphinx. */
  stt: SttRegistry;
  /** Test seams of the audio_url fetcher (fake DNS, connect redirection); empty in production. */
  audioFetch: AudioFetchHooks;
  /** Registers a cleanup to run on `close()` (in reverse order of registration, before the db closes). */
  onClose(fn: () => Promise<void> | void): void;
  /** Closes workers, timers and the database; idempotent. */
  close(): Promise<void>;
}

/** Builds the runtime for `options` (creates the data dir and migrates the database). */
export async function createRuntime(options: ServerOptions, deps: { clock?: Clock } = {}): Promise<Runtime> {
  const logger = createLogger(options.logLevel);
  const secret = loadOrCreateSecret(options.dataDir);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // Validated before anything else starts: a bad config file stops the server with the offending key.
  const config = loadServerConfig({ dataDir: options.dataDir, configPath: options.configPath });
  const stt = createSttRegistry(config);
  const db = openSqliteDatabase(join(options.dataDir, 'voxctl.db'));
  const clock = deps.clock ?? systemClock;
  let bootstrap: BootstrapResult | undefined;
  let rateLimiter: RateLimiter;
  try {
    await refundStaleReservations(db);
    bootstrap = await bootstrapIfEmpty(db, { dataDir: options.dataDir, bootstrapKey: options.bootstrapKey, now: clock.now() });
    rateLimiter = await createRateLimiter({ db, clock, journalPath: join(options.dataDir, 'requests.journal') });
  } catch (err) {
    await db.close();
    throw err;
  }
  // The limiter's last flush must run after every other closer (workers still count), right before the db closes.
  const closers: (() => Promise<void> | void)[] = [() => rateLimiter.close()];
  let closed = false;
  // Workers spawn now (cheap); each loads its engines on first use, so start-up stays fast.
  const tts = createTtsPool({ size: options.ttsWorkers });
  closers.push(() => tts.close());
  // The runners read the pool through the runtime, so a test that swaps `runtime.tts` reaches them too.
  const pool = (): TtsPool => runtime.tts;
  const wiring = { db, dataDir: options.dataDir, clock, ttsWorkers: options.ttsWorkers, tts: pool, logger };
  const runtime: Runtime = {
    options,
    db,
    clock,
    logger,
    tts,
    samples: createSampleProvider(wiring),
    speakerFacets: createFacetsCache(db),
    jobs: createBatchRunner(wiring),
    evaluations: createEvaluationRunnerFor({ ...wiring, stt, sphinxMax: config.stt.localSphinx.max_concurrent }),
    secret,
    urls: createUrlSigner(secret),
    startedAt: clock.now(),
    rateLimiter,
    ...(bootstrap ? { bootstrap } : {}),
    config,
    stt,
    sttHealth: () => sttHealthOf(stt),
    audioFetch: {},
    onClose(fn) {
      closers.push(fn);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const c of closers.reverse()) await c();
      await db.close();
    },
  };
  // Closers run in reverse: the runners stop (draining their items) while the pool is still up.
  runtime.onClose(() => runtime.jobs.stop());
  try {
    await runtime.jobs.start();
    // After the job runner: its start-up recovery clears audio debris before evaluations resume.
    runtime.onClose(() => runtime.evaluations.stop());
    await runtime.evaluations.start();
  } catch (err) {
    await runtime.close();
    throw err;
  }
  return runtime;
}
