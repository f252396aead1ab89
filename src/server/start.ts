import { writeFileSync, rmSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../shared/version.js';
import { redactDatabaseUrl } from '../shared/database-url.js';
import type { ServerOptions } from './options.js';
import type { Runtime } from './runtime.js';
import { openEarlyListener } from './listener.js';

/** A listening service: its address, and a `close()` that drains requests, then workers, then the db. */
export interface RunningServer {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
  port: number;
  close(): Promise<void>;
}

/** See runtime.ts's checkStartOptions (loaded on demand: this module is on the path of the first second). */
export async function checkStartOptions(options: ServerOptions): Promise<void> {
  (await import('./runtime.js')).checkStartOptions(options);
}

/** How long a stopping server lets open responses finish before it closes their connections. */
export const DRAIN_CONNECTIONS_MS = 10_000;

/**
 * Starts the service on `options.host:options.port` and records pid/port/version in `server.json`. The
 * listener opens first, before the service's modules load, and answers `starting` (listener.ts, DESIGN
 * §14.14) until the runtime (database, migrations, engines) and the app are ready; then the app answers.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const listener = await openEarlyListener(options);
  let runtime: Runtime | undefined;
  let app: FastifyInstance;
  try {
    const [{ createRuntime }, { buildApp }, { createLogger }] = await Promise.all([import('./runtime.js'), import('./app.js'), import('./logger.js')]);
    const logger = createLogger(options.logLevel);
    // What the starting listener answered is logged as every request is (DESIGN §14.16), probes at debug.
    listener.logTo((line, probe) => (probe ? logger.debug(line, 'request completed') : logger.info(line, 'request completed')));
    runtime = await createRuntime(options, { logger });
    let handler: RequestListener | undefined;
    app = await buildApp(runtime, {
      serverFactory: (h) => {
        handler = h;
        return listener.server;
      },
    });
    listener.handOver(handler!);
  } catch (err) {
    await listener.close();
    await runtime?.close();
    throw err;
  }
  const rt = runtime;
  const server = listener.server;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  const serverFile = join(options.dataDir, 'server.json');
  // Never the password: `serve status` shows what this file says.
  const database = options.databaseUrl ? redactDatabaseUrl(options.databaseUrl) : 'sqlite';
  writeFileSync(serverFile, JSON.stringify({ pid: process.pid, port, host: options.host, url, version: VERSION, database, log: options.logFile ?? null }, null, 2));
  let closing: Promise<void> | undefined;
  return {
    app,
    runtime: rt,
    url,
    port,
    close() {
      closing ??= (async () => {
        // Requests in flight get DRAIN_CONNECTIONS_MS to finish; then what is left is cut. Without a bound a
        // client that stops reading a large response (a WAV it never consumes) held the stop for over a
        // minute, and with it every claimed job behind it.
        const cut = setTimeout(() => server.closeAllConnections(), DRAIN_CONNECTIONS_MS);
        cut.unref();
        // No new connections; the server closes once the open ones end. The app's close starts the drain
        // (plugins/drain.ts): answers say Connection: close and idle connections are closed.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await app.close();
        await closed;
        clearTimeout(cut);
        await rt.close();
        rmSync(serverFile, { force: true });
      })();
      return closing;
    },
  };
}
