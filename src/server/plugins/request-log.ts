import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactSignature } from '../../shared/redact-signature.js';

/** Probes polled every few seconds by balancers and scrapers: their lines would drown the rest at `info`. */
const isProbe = (route: string): boolean => route === '/metrics' || route === '/health' || route.startsWith('/health/');

/** The route's pattern (`/v1/jobs/:id`), or `unmatched` for a URL no route answers (as the metrics label it). */
export const routeOf = (request: FastifyRequest): string => request.routeOptions.url ?? 'unmatched';

/**
 * One line per request, written when it completes (DESIGN §14.16): `method`, `route`, `status`,
 * `duration_ms`, `request_id` and the URL with a signed URL's `sig` redacted; the request logger's mixin
 * adds `user_id`/`key_id` once the request is authenticated. Fastify's own incoming/completed pair is off
 * (app.ts `disableRequestLogging`), so this is the only line of a request that carries `status` or `route`.
 */
export function registerRequestLog(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    logRequestLine(request, reply);
    done();
  });
}

/**
 * Writes the request's one line. The `onResponse` hook calls it; so does the router's error answer (a
 * malformed URL, an over-long parameter), which no hook sees.
 */
export function logRequestLine(request: FastifyRequest, reply: FastifyReply): void {
  const route = routeOf(request);
  const line = {
    method: request.method,
    route,
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
    request_id: request.id,
    url: redactSignature(request.url),
  };
  if (isProbe(route)) request.log.debug(line, 'request completed');
  else request.log.info(line, 'request completed');
}
