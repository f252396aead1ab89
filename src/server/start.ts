import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../shared/version.js';
import { redactDatabaseUrl } from '../shared/database-url.js';
import { buildApp } from './app.js';
import type { ServerOptions } from './options.js';
import { createRuntime, type Runtime } from './runtime.js';

/** A listening service: its address, and a `close()` that drains requests, then workers, then the db. */
export interface RunningServer {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
  port: number;
  close(): Promise<void>;
}

export { loggerOptions } from './logger.js';

export { checkStartOptions } from './runtime.js';

/** How long a stopping server lets open responses finish before it closes their connections. */
export const DRAIN_CONNECTIONS_MS = 10_000;

/** Starts the service on `options.host:options.port` and records pid/port/version in `server.json`. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const runtime = await createRuntime(options);
  const app = await buildApp(runtime);
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (err) {
    await app.close();
    await runtime.close();
    throw err;
  }
  const address = app.server.address();
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
    runtime,
    url,
    port,
    close() {
      closing ??= (async () => {
        // Requests in flight get DRAIN_CONNECTIONS_MS to finish; then what is left is cut. Without a bound a
        // client that stops reading a large response (a WAV it never consumes) held the stop for over a
        // minute, and with it every claimed job behind it.
        const cut = setTimeout(() => app.server.closeAllConnections(), DRAIN_CONNECTIONS_MS);
        cut.unref();
        await app.close();
        clearTimeout(cut);
        await runtime.close();
        rmSync(serverFile, { force: true });
      })();
      return closing;
    },
  };
}
