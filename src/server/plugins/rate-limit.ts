import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../errors.js';
import type { RateDecision } from '../services/rate-limiter.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The rate-limit decision of this request (headers are derived from it). */
    rateLimit?: RateDecision;
  }
}

/** The three X-RateLimit-* headers of a decision (DESIGN §4.14). */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return { 'X-RateLimit-Limit': String(d.limit), 'X-RateLimit-Remaining': String(d.remaining), 'X-RateLimit-Reset': String(d.reset) };
}

function setHeaders(reply: FastifyReply, d: RateDecision): void {
  reply.headers(rateLimitHeaders(d));
}

/**
 * Requests never counted in the anonymous per-IP bucket (DESIGN §7): the liveness check CLIs in loops
 * make, and signed audio URLs, which their signature already authorises (a 100-item download must not
 * hit 429). Their headers still show the caller's bucket.
 */
export function isUnmetered(method: string, url: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (path === '/health') return true;
  return q >= 0 && /^\/v1\/audio\/[^/]+\.wav$/.test(path) && /(?:^|&)sig=/.test(url.slice(q + 1));
}

/**
 * Counts every request (under its key, else its client IP) in `onRequest` and answers 429 with
 * `Retry-After` past the limit; `onSend` makes sure the three headers are on every response, also
 * those that failed before counting (DESIGN §4.14).
 */
export function registerRateLimit(app: FastifyInstance): void {
  const limiter = app.runtime.rateLimiter;
  app.decorateRequest('rateLimit', undefined);
  app.addHook('onRequest', (request, reply, done) => {
    const auth = request.auth;
    const unmetered = !auth && isUnmetered(request.method, request.url);
    const d = auth
      ? limiter.hitKey({ keyId: auth.keyId, userId: auth.userId, tier: auth.tier })
      : unmetered
        ? limiter.peekAnonymous(request.ip)
        : limiter.hitAnonymous(request.ip);
    request.rateLimit = d;
    setHeaders(reply, d);
    if (d.allowed || unmetered) return done();
    done(new ApiError(429, 'Rate limit exceeded', { headers: { 'Retry-After': String(d.retryAfter ?? 1) } }));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('x-ratelimit-limit')) setHeaders(reply, request.rateLimit ?? limiter.peekAnonymous(request.ip));
    done(null, payload);
  });
}
