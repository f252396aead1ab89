import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** True for 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (`::ffff:127.0.0.1`). */
export function isLoopbackAddress(ip: string): boolean {
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return v4.startsWith('127.') || ip === '::1';
}

/** Constant-time comparison of the presented token with the configured one. */
function tokenMatches(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Who may read `/metrics` (DESIGN §14.4): a loopback caller (the client address after --trust-proxy, so a
 * request relayed by a trusted proxy counts as its real client), or anyone presenting the metrics token.
 */
export function mayReadMetrics(request: FastifyRequest, token: string | undefined): boolean {
  const presented = BEARER.exec(request.headers.authorization ?? '')?.[1];
  if (token !== undefined && presented !== undefined && tokenMatches(presented, token)) return true;
  return isLoopbackAddress(request.ip);
}

/**
 * Times every answered request under its route pattern and serves `GET /metrics` in the Prometheus text
 * format; callers who may not read it get the ordinary 404 (the endpoint's existence is not advertised).
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  // A callback hook: an async one costs a promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { config: { public: true, rateLimit: false, ownBearer: true }, schema: { hide: true } }, async (request, reply) => {
    if (!mayReadMetrics(request, token)) return reply.callNotFound();
    return reply.type(metrics.contentType).send(await metrics.render());
  });
}
