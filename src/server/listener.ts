import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { SERVICE_STARTING_HEADER } from '../shared/service-starting.js';
import { redactSignature } from '../shared/redact-signature.js';

/**
 * Options of the one HTTP server of the service, used from the first moment: a missing Host is answered
 * in the error envelope by the app (plugins/http-errors.ts), not refused bare by Node.
 */
export const HTTP_SERVER_OPTIONS = { requireHostHeader: false } as const;
/** How long an idle keep-alive connection stays open (Fastify's default, which the app was built with). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** The request line of a request the starting service answered (DESIGN §14.16); `probe`: a health check (logged at debug). */
export interface StartingRequestLine {
  method: string;
  /** `/health/live` or `/health/ready`, else `starting`: no route of the app exists yet. */
  route: string;
  status: number;
  duration_ms: number;
  request_id: string;
  url: string;
}

/** The listener of a starting service and the hand-over of its requests to the app once it is built. */
export interface EarlyListener {
  server: Server;
  /**
   * Where its request lines go from now on; those of requests answered before (the logger loads after the
   * listener opens) are written first.
   */
  logTo(log: (line: StartingRequestLine, probe: boolean) => void): void;
  /** The app's request handler takes every request from now on. */
  handOver(handler: RequestListener): void;
  /** Stops listening and closes its connections (a start that failed). */
  close(): Promise<void>;
}

/**
 * Opens the HTTP listener before anything else of the service loads (DESIGN §14.14): `/health/live` 200
 * at once, `/health/ready` 503 `starting` and every other route 503 `Service temporarily unavailable`
 * (Retry-After: 5) while the database is migrated (the migration lock waited for), the engines load and
 * the app is built — so a liveness probe with a short delay does not restart a starting instance, and a
 * proxy moves its requests on. This module imports only Node and two small shared modules: it is what runs in
 * the first second.
 */
export async function openEarlyListener(options: { host: string; port: number }): Promise<EarlyListener> {
  let pending: [StartingRequestLine, boolean][] | undefined = [];
  let log: (line: StartingRequestLine, probe: boolean) => void = (line, probe) => void pending?.push([line, probe]);
  let handler: RequestListener = (req, res) => answerStarting(req, res, (line, probe) => log(line, probe));
  const server = createServer(HTTP_SERVER_OPTIONS, (req, res) => handler(req, res));
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    logTo(next) {
      for (const [line, probe] of pending ?? []) next(line, probe);
      pending = undefined;
      log = next;
    },
    handOver(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * What a starting service answers (the shapes of `/health/live`, `/health/ready` and the error envelope),
 * and its one request line once the answer is sent.
 */
function answerStarting(req: IncomingMessage, res: ServerResponse, log: (line: StartingRequestLine, probe: boolean) => void): void {
  const started = performance.now();
  const path = (req.url ?? '/').split('?')[0]!;
  const requestId = `req_${randomUUID().replaceAll('-', '')}`;
  const probe = path === '/health/live' || path === '/health/ready';
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'X-Request-Id': requestId, ...headers });
    res.end(req.method === 'HEAD' ? undefined : text);
    const line = { method: req.method ?? 'GET', route: probe ? path : 'starting', status, duration_ms: Math.round((performance.now() - started) * 1000) / 1000, request_id: requestId, url: redactSignature(req.url ?? '/') };
    log(line, probe);
  };
  // The request body is not read: drain it so the connection stays usable.
  req.resume();
  if (path === '/health/live') return send(200, { status: 'ok' });
  if (path === '/health/ready') return send(503, { status: 'not_ready', reason: 'starting' });
  // Nothing ran: the header tells a client it may send any request again, a POST included (the same 503
  // from a running service during a database outage may follow partial work).
  send(503, { detail: 'Service temporarily unavailable', status_code: 503, request_id: requestId, code: 'service_unavailable' }, { 'Retry-After': '5', [SERVICE_STARTING_HEADER]: '1' });
}
