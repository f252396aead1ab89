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
  /** TTS worker threads (default: CPU count). */
  ttsWorkers?: number;
  /** Pino log level (default info); `silent` in tests. */
  logLevel: string;
}

// Written once in shared/constants so the CLI reads them without loading the server.
export { DEFAULT_HOST, DEFAULT_PORT } from '../shared/constants.js';
