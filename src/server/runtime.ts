import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import type { ServerOptions } from './options.js';
import { openDatabase, type Db } from './storage/db.js';
import { loadOrCreateSecret } from './secret.js';
import type { TtsPool } from './engines/tts/types.js';

/**
 * The composition root: every long-lived collaborator of the service, built once per server.
 * Routes reach them as `app.runtime`; tests build a runtime on a temp data dir.
 */
export interface Runtime {
  options: ServerOptions;
  db: Db;
  clock: Clock;
  /** HMAC key of signed audio URLs (`{dataDir}/secret`, 0600). */
  secret: Buffer;
  /** The TTS worker pool (set by the engines workstream). */
  tts?: TtsPool;
  /** Registers a cleanup to run on `close()` (in reverse order of registration, before the db closes). */
  onClose(fn: () => Promise<void> | void): void;
  /** Closes workers, timers and the database; idempotent. */
  close(): Promise<void>;
}

/** Builds the runtime for `options` (creates the data dir and migrates the database). */
export async function createRuntime(options: ServerOptions, deps: { clock?: Clock } = {}): Promise<Runtime> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(options.dataDir, 'voxctl.db'));
  const clock = deps.clock ?? systemClock;
  const closers: (() => Promise<void> | void)[] = [];
  let closed = false;
  const runtime: Runtime = {
    options,
    db,
    clock,
    secret: loadOrCreateSecret(options.dataDir),
    onClose(fn) {
      closers.push(fn);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const c of closers.reverse()) await c();
      db.close();
    },
  };
  return runtime;
}
