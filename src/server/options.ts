/** Everything `voxctl serve` can be told; resolved once by the CLI (flags > env > defaults). */
export interface ServerOptions {
  /** Folder with voxctl.db, audio/, server.json, serve.log, bootstrap-key, secret. */
  dataDir: string;
  /** Bind address (default 127.0.0.1). */
  host: string;
  /** Port (default 7723; 0 picks a free one). */
  port: number;
  /** Base of the audio URLs handed out; default: scheme and Host of each request. */
  publicUrl?: string;
  /** STT provider bindings file; default `{dataDir}/voxctl.config.json` when it exists. */
  configPath?: string;
  /** Let /v1/stt/transcribe fetch loopback/private URLs (tests, trusted networks). */
  allowPrivateAudioUrls: boolean;
  /** Key to create for the first user instead of a random one (VOXCTL_BOOTSTRAP_KEY). */
  bootstrapKey?: string;
  /**
   * Engine worker threads (`--workers`, default: CPU count). 0 makes an API-only instance: it claims no
   * queued work, and starts one engine thread on demand for synchronous requests.
   */
  ttsWorkers?: number;
  /** How long a claimed work item stays this instance's, in seconds (`--lease-seconds`, 10..3600; default 60). */
  leaseSeconds?: number;
  /**
   * Days generated audio and single uploads are kept (`--audio-retention-days`, 1..36500); none: kept for
   * ever. A corpus's recordings are kept until the corpus is deleted.
   */
  audioRetentionDays?: number;
  /** PostgreSQL URL (`--database-url` / VOXCTL_DATABASE_URL, DESIGN §9); none: SQLite in the data dir. */
  databaseUrl?: string;
  /** Where audio bytes live on PostgreSQL: `s3://bucket/prefix` (`--audio-store`); none: in the database. */
  audioStore?: string;
  /** Endpoint of an S3-compatible store (`--s3-endpoint`); none: AWS's own endpoint for the region. */
  s3Endpoint?: string;
  /** The S3 region: AWS's own variables (`AWS_REGION`, else `AWS_DEFAULT_REGION`), read where every setting is; default us-east-1. */
  s3Region?: string;
  /**
   * Addresses or CIDR ranges of reverse proxies (`--trust-proxy`): from them, X-Forwarded-For/-Proto/-Host
   * give the client's address (the per-IP limit), scheme and host (audio URLs). None: headers ignored.
   */
  trustProxy?: readonly string[];
  /**
   * Bearer token that lets a non-loopback caller read `/metrics` (`--metrics-token` / VOXCTL_METRICS_TOKEN);
   * none: only loopback callers get the metrics, everyone else a 404.
   */
  metricsToken?: string;
  /**
   * Test-only (VOXCTL_TEST_REPLAY_TRANSACTIONS=1, the PostgreSQL test pass): every transaction body runs twice,
   * the first time rolled back, to prove no body has an effect outside the database (storage/sql/postgres.ts).
   */
  replayTransactions?: boolean;
  /** The file a detached instance's output goes to (recorded in server.json for `serve status`); none in the foreground. */
  logFile?: string;
  /** Pino log level (default info); `silent` in tests. */
  logLevel: string;
}

// Written once in shared/constants so the CLI reads them without loading the server.
export { DEFAULT_HOST, DEFAULT_PORT } from '../shared/constants.js';
