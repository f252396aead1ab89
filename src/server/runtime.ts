import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import type { ServerOptions } from './options.js';
import { openDatabase, type Db } from './storage/db.js';
import { loadOrCreateSecret, loadOrCreateSharedSecret } from './secret.js';
import type { TtsPool } from './engines/tts/types.js';
import { createTtsPool } from './engines/tts/pool.js';
import { createDecodePool } from './audio/decode-pool.js';
import { createRateLimiter, type RateLimiter } from './features/limits/rate-limiter.js';
import { createSharedRateLimiter } from './features/limits/shared-rate-limiter.js';
import { startInstancePresence, type InstancePresence } from './features/ops/instances.js';
import { openAudioBlobStore, type AudioBlobStore, type OpenedBlobStore } from './storage/blobs/index.js';
import { randomBytes } from 'node:crypto';
import { bootstrapIfEmpty, type BootstrapResult } from './features/accounts/bootstrap.js';
import { refundStaleReservations } from './features/limits/reservations.js';
import { createBatchRunner, createEvaluationRunner, type WorkLoop, type WorkSharing } from './work-kinds.js';
import { createLogger, type Logger } from './logger.js';
import { createSampleProvider, SAMPLE_PREFIX, type SampleProvider } from './features/synthesis/samples.js';
import { createFacetsCache } from './features/synthesis/speakers.js';
import type { SpeakerFacets } from '../shared/schemas/speakers.js';
import { loadServerConfig, type ServerConfig } from './config.js';
import { createSttRegistry, sttHealthOf, type SttRegistry } from './engines/stt/registry.js';
import { FrameScheduler } from './engines/stt/streaming/scheduler.js';
import { STREAM_LIMITS, type StreamLimits } from './engines/stt/streaming/bounds.js';
import { loadAudio, type AudioFetchHooks } from './features/audio/audio-fetch.js';
import { createUrlSigner, type UrlSigner } from './features/audio/audio-urls.js';
import { createMetrics, type Metrics } from './features/ops/metrics.js';
import { createDatabaseAvailability, type DatabaseAvailability } from './storage/database-availability.js';
import type { TtsWorkerPool } from './engines/tts/pool.js';
import { DEFAULT_CORPUS_LIMITS, type CorpusSettings } from './features/corpora/upload.js';
import { recoverCorpusUploads } from './features/corpora/recovery.js';
import { listCorpusUploadPrefixes } from './features/corpora/repository.js';
import { DEAD_AFTER_MS } from './features/ops/instances.js';
import { createBillingFeature, type BillingFeature } from './features/billing/feature.js';
import { createAccountsFeature, type AccountsFeature } from './features/accounts/feature.js';
import { createJobsFeature, type JobsFeature } from './features/jobs/feature.js';
import { createEvaluationsFeature, type EvaluationsFeature } from './features/evaluations/feature.js';
import { createSynthesisFeature, type SynthesisFeature } from './features/synthesis/feature.js';
import { createSttFeature, type SttFeature } from './features/stt/feature.js';
import { createDatasetsFeature, type DatasetsFeature } from './features/datasets/feature.js';
import { createCorporaFeature, type CorporaFeature } from './features/corpora/feature.js';
import { createAudioLinks, type AudioLinks } from './features/audio/audio-links.js';
import { createAudioFeature, type AudioFeature } from './features/audio/feature.js';
import { startAudioRetention, type AudioRetention } from './features/audio/retention.js';

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
  /** This process among the instances of one database (`/health`, the owner of its leases). */
  instanceId: string;
  /** How long a claimed work item stays this instance's without renewal (`--lease-seconds`, DESIGN §14.15). */
  leaseMs: number;
  /** Where audio bytes live: `{dataDir}/audio`, the shared database, or an S3 bucket. */
  blobs: AudioBlobStore;
  /** The audio retention's sweep (`--audio-retention-days`); none when audio is kept for ever. */
  audioRetention?: AudioRetention;
  /**
   * HMAC key of the server (`{dataDir}/secret`, 0600; in the shared database on PostgreSQL): URL
   * signatures, billing portal CSRF tokens.
   */
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
  jobs: WorkLoop;
  /** The evaluation runner over its SQLite queue (wake it after creating an evaluation). */
  evaluations: WorkLoop;
  /** The validated server config file (STT provider bindings). */
  config: ServerConfig;
  /** STT providers: the nine spec tokens as bound by the config, plus local-sphinx. */
  stt: SttRegistry;
  /** Prometheus metrics of this instance (`/metrics`, DESIGN §14.4). */
  metrics: Metrics;
  /** Tells a lost database from other failures: 503 instead of 500, one log line per outage (§14.3). */
  database: DatabaseAvailability;
  /** The one pacer of every streamed audio of this process (DESIGN §13.2). */
  streamScheduler: FrameScheduler;
  /** The bounds of streams (DESIGN §17.5's; tests lower the deadline): routes and runners read them per stream. */
  streamLimits: StreamLimits;
  /** Test seams of the audio_url fetcher (fake DNS, connect redirection); empty in production. */
  audioFetch: AudioFetchHooks;
  /** The bytes of an `audio_url` (DESIGN §6): ours from storage, others fetched under the SSRF rules and `audioFetch`. */
  loadAudioUrl(url: string): Promise<Buffer>;
  /** Corpus uploads: their temp folder (`{dataDir}/tmp/corpora`) and limits (DESIGN's; tests lower them). */
  corpora: CorpusSettings;
  /** The features their routes call, each bound once here to its collaborators: a route only parses and calls. */
  features: Features;
  /** Registers a cleanup to run on `close()` (in reverse order of registration, before the db closes). */
  onClose(fn: () => Promise<void> | void): void;
  /** Closes workers, timers and the database; idempotent. */
  close(): Promise<void>;
}

/** The features as their routes see them (one object each, built by `createRuntime`). */
export interface Features {
  accounts: AccountsFeature;
  /** Signed downloads and uploads of audio files (DESIGN §4.7). */
  audio: AudioFeature;
  /** Signed audio URLs of a response (DESIGN §6). */
  audioLinks: AudioLinks;
  billing: BillingFeature;
  corpora: CorporaFeature;
  datasets: DatasetsFeature;
  evaluations: EvaluationsFeature;
  jobs: JobsFeature;
  stt: SttFeature;
  synthesis: SynthesisFeature;
}

/**
 * Checks what start-up would check of `options` before anything runs — the config file (its STT
 * bindings, validated and bound exactly as `createRuntime` does) — and throws the error start-up would
 * give. `serve restart` asks this before it stops the running service, so a typo leaves it running.
 */
export function checkStartOptions(options: ServerOptions): void {
  createSttRegistry(loadServerConfig({ dataDir: options.dataDir, configPath: options.configPath }));
}
/** How long a claimed batch item or synthesis stays an instance's without renewal (DESIGN §9.3). */
export const DEFAULT_LEASE_MS = 60_000;

/** The lease length: `--lease-seconds` (checked by the CLI, DESIGN §14.15), else 60 s. */
function leaseMsOf(options: ServerOptions): number {
  return options.leaseSeconds !== undefined ? options.leaseSeconds * 1000 : DEFAULT_LEASE_MS;
}

/** Where corpus uploads keep their archive and extracted files while they are checked. */
const corpusTmpRoot = (dataDir: string): string => join(dataDir, 'tmp', 'corpora');

/** Builds the runtime for `options` (creates the data dir and migrates the database). */
export async function createRuntime(options: ServerOptions, deps: { clock?: Clock; logger?: Logger } = {}): Promise<Runtime> {
  // The logger start.ts made as the listener opened (its starting request lines go to it too), else one here.
  const logger = deps.logger ?? createLogger(options.logLevel);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // Validated before anything else starts: a bad config file stops the server with the offending key.
  const config = loadServerConfig({ dataDir: options.dataDir, configPath: options.configPath });
  const stt = createSttRegistry(config);
  const shared = options.databaseUrl !== undefined;
  // Set once the database is open: every background failure that is the database being away is said once
  // per outage by it (DESIGN §14.3), the pool's idle-connection errors included.
  const outages: { tracker?: DatabaseAvailability } = {};
  const db = await openDatabase(
    shared
      ? {
          url: options.databaseUrl!,
          onIdleError: (err) => {
            if (!outages.tracker?.report(err)) logger.warn({ err: { message: err.message } }, 'a PostgreSQL connection failed; the pool replaces it');
          },
          replayTransactions: options.replayTransactions === true,
        }
      : { file: join(options.dataDir, 'voxctl.db') },
  );
  const database = createDatabaseAvailability({ db, logger });
  outages.tracker = database;
  const clock = deps.clock ?? systemClock;
  const instanceId = `inst_${randomBytes(8).toString('hex')}`;
  const closers: (() => Promise<void> | void)[] = [];
  let bootstrap: BootstrapResult | undefined;
  let rateLimiter: RateLimiter;
  let secret: Buffer;
  let blobs: OpenedBlobStore | undefined;
  // On a shared database: this instance's heartbeat, and whether it may judge its peers now (DESIGN §14.10).
  let presence: InstancePresence | undefined;
  let audioRetention: AudioRetention | undefined;
  try {
    // One secret for every instance of a database, so a URL signed by one verifies at any other.
    secret = shared ? await loadOrCreateSharedSecret(db) : loadOrCreateSecret(options.dataDir);
    blobs = await openAudioBlobStore({ dataDir: options.dataDir, db, audioStore: options.audioStore, s3Endpoint: options.s3Endpoint, s3Region: options.s3Region });
    if (shared) {
      const started = await startInstancePresence({ db, clock, id: instanceId, blobs: blobs.store, pendingBlobs: listCorpusUploadPrefixes, logger, database });
      presence = started;
      closers.push(() => started.close());
    } else {
      await refundStaleReservations(db);
    }
    // Before anything serves: what a killed corpus upload left (temp files, blobs of no corpus) goes.
    const store = blobs.store;
    const corpusRecovery = () =>
      recoverCorpusUploads({
        db,
        blobs: store,
        tmpRoot: corpusTmpRoot(options.dataDir),
        shared,
        self: instanceId,
        // Just back from a database outage, no peer's silence counts yet: every heartbeat aged with it.
        deadBefore: new Date(presence && !presence.mayJudge() ? 0 : clock.now().getTime() - DEAD_AFTER_MS),
      });
    await corpusRecovery();
    if (options.audioRetentionDays !== undefined) {
      audioRetention = startAudioRetention({ db, blobs: store, clock, logger, days: options.audioRetentionDays });
      const started = audioRetention;
      closers.push(() => started.close());
    }
    if (shared) {
      // A peer that died mid-upload on another machine is noticed once it stops heartbeating.
      const timer = setInterval(() => void corpusRecovery().catch((err: unknown) => logger.warn({ err }, 'corpus upload clean-up failed (retried later)')), 60_000);
      timer.unref();
      closers.push(() => clearInterval(timer));
    }
    bootstrap = await bootstrapIfEmpty(db, { dataDir: options.dataDir, bootstrapKey: options.bootstrapKey, now: clock.now() });
    rateLimiter = shared ? createSharedRateLimiter({ db, clock }) : await createRateLimiter({ db, clock, journalPath: join(options.dataDir, 'requests.journal') });
  } catch (err) {
    for (const c of closers.reverse()) await c();
    blobs?.close();
    await db.close();
    throw err;
  }
  // The limiter's last flush must run after every other closer (workers still count), right before the db closes.
  closers.unshift(() => rateLimiter.close(), () => blobs.close());
  let closed = false;
  // Workers spawn now (cheap); each loads its engines on first use, so start-up stays fast. An API-only
  // instance (--workers 0) keeps one for the synchronous endpoints and claims no queued work.
  const tts = createTtsPool({ size: options.ttsWorkers === 0 ? 1 : options.ttsWorkers });
  closers.push(() => tts.close());
  closers.push(() => stt.close());
  // Corpus uploads decode on worker threads, started on the first upload (none while the service is idle).
  const decodePool = createDecodePool();
  closers.push(() => decodePool.close());
  // The runners read the pool through the runtime, so a test that swaps `runtime.tts` reaches them too.
  const pool = (): TtsPool => runtime.tts;
  const work: WorkSharing = { owner: instanceId, leaseMs: leaseMsOf(options), shared, claims: options.ttsWorkers !== 0, pollMs: 1_000, ...(presence ? { mayJudge: presence.mayJudge } : {}) };
  const metrics = createMetrics({ db, busyWorkers: () => (runtime.tts as Partial<TtsWorkerPool>).stats?.().busy ?? 0, databaseUp: () => !database.isDown() });
  const wiring = { db, blobs: blobs.store, clock, ttsWorkers: options.ttsWorkers || undefined, tts: pool, logger, work, database, metrics };
  // One pacer for every stream of the process: `stt stream` requests and streaming evaluations alike.
  const streamScheduler = new FrameScheduler();
  const streamLimits: StreamLimits = { ...STREAM_LIMITS, deadline: { ...STREAM_LIMITS.deadline } };
  const urls = createUrlSigner(secret);
  const samples = createSampleProvider(wiring);
  const corpusSettings: CorpusSettings = { tmpRoot: corpusTmpRoot(options.dataDir), limits: { ...DEFAULT_CORPUS_LIMITS } };
  const runtime: Runtime = {
    options,
    db,
    clock,
    logger,
    tts,
    instanceId,
    leaseMs: work.leaseMs,
    blobs: blobs.store,
    ...(audioRetention ? { audioRetention } : {}),
    samples,
    speakerFacets: createFacetsCache(db),
    jobs: createBatchRunner(wiring),
    evaluations: createEvaluationRunner({ ...wiring, stt, sphinxMax: config.stt.localSphinx.max_concurrent, streamScheduler, streamLimits }),
    secret,
    urls,
    startedAt: clock.now(),
    rateLimiter,
    ...(bootstrap ? { bootstrap } : {}),
    config,
    stt,
    streamScheduler,
    streamLimits,
    sttHealth: () => sttHealthOf(stt),
    audioFetch: {},
    // Reads the seams per call: a test sets `runtime.audioFetch` after start-up.
    loadAudioUrl: (url) =>
      loadAudio({ db, blobs: blobs.store, urls: runtime.urls, clock, allowPrivate: options.allowPrivateAudioUrls, hooks: runtime.audioFetch, retentionDays: options.audioRetentionDays }, url),
    metrics,
    database,
    corpora: corpusSettings,
    features: {
      accounts: createAccountsFeature({ db, clock, requestsToday: (userId) => rateLimiter.requestsToday(userId) }),
      audio: createAudioFeature({
        db,
        blobs: blobs.store,
        clock,
        urls,
        samples: { isSample: (id) => id.startsWith(SAMPLE_PREFIX), exists: (id) => samples.exists(id), get: (id) => samples.get(id) },
        retentionDays: options.audioRetentionDays,
      }),
      audioLinks: createAudioLinks({ urls, clock, publicUrl: options.publicUrl }),
      billing: createBillingFeature({ db, clock, secret }),
      corpora: createCorporaFeature({ db, blobs: blobs.store, clock, instanceId, settings: corpusSettings, decodePool }),
      datasets: createDatasetsFeature({ db, clock, wakeJobs: () => runtime.jobs.wake() }),
      evaluations: createEvaluationsFeature({ db, clock, urls, stt, publicUrl: options.publicUrl, wake: () => runtime.evaluations.wake() }),
      jobs: createJobsFeature({ db, clock, wakeJobs: () => runtime.jobs.wake() }),
      stt: createSttFeature({ registry: stt, scheduler: streamScheduler, streamLimits, loadAudio: (url) => runtime.loadAudioUrl(url) }),
      synthesis: createSynthesisFeature(() => ({ db, blobs: blobs.store, instanceId, clock, tts: runtime.tts })),
    },
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
  runtime.onClose(() => runtime.database.close());
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
