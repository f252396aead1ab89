import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';
import { whenSettled } from '../../../shared/maybe-promise.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The rate-limit decision of this request (headers are derived from it). */
    rateLimit?: RateDecision;
  }
  interface FastifyContextConfig {
    /**
     * `false`: anonymous requests to the route are not counted in the per-IP bucket (liveness checks, URLs
     * authorised by their signature: `/health`, signed audio and report URLs — DESIGN §7). A valid key still
     * counts in its account (an authenticated request, DESIGN §4.13); the headers are always sent.
     */
    rateLimit?: boolean;
  }
}

/** The three X-RateLimit-* headers of a decision (DESIGN §4.14). */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return { 'X-RateLimit-Limit': String(d.limit), 'X-RateLimit-Remaining': String(d.remaining), 'X-RateLimit-Reset': String(d.reset) };
}

function setHeaders(reply: FastifyReply, d: RateDecision): void {
  reply.header('X-RateLimit-Limit', d.limit).header('X-RateLimit-Remaining', d.remaining).header('X-RateLimit-Reset', d.reset);
}

/**
 * The decision for one request: a valid key counts in its account's windows, anything else in its
 * client IP's — unless the route is exempt from the IP bucket; a rejected key is counted even there, so
 * guessing keys is never free. The decision is a promise only when the count must wait for the database.
 */
function decide(limiter: RateLimiter, request: FastifyRequest): { decision: RateDecision | Promise<RateDecision>; exempt: boolean } {
  if (request.auth) return { decision: limiter.hitUser(request.auth), exempt: false };
  const exempt = request.routeOptions.config.rateLimit === false && request.authRejected !== true;
  return { decision: exempt ? limiter.peekAnonymous(request.ip) : limiter.hitAnonymous(request.ip), exempt };
}

/**
 * Counts every request in `onRequest` and answers 429 with `Retry-After` past the limit; `onSend` makes
 * sure the three headers are on every response, also those that failed before counting, and holds a
 * counted request's answer until its count is written (DESIGN §4.14).
 */
export function registerRateLimit(app: FastifyInstance): void {
  const limiter = app.runtime.rateLimiter;
  app.decorateRequest('rateLimit', undefined);
  // A callback hook: the decision is usually known at once, and an async hook would cost it a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const { decision, exempt } = decide(limiter, request);
    whenSettled(
      decision,
      (d) => {
        request.rateLimit = d;
        setHeaders(reply, d);
        // An exempt route shows the caller's spent IP bucket in its headers but is never refused for it.
        if (d.allowed || exempt) done();
        else done(new ApiError('rate_limited', 'Rate limit exceeded', { headers: { 'Retry-After': String(d.retryAfter ?? 1) } }));
      },
      (error) => done(error as Error),
    );
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.rateLimit === undefined) setHeaders(reply, limiter.peekAnonymous(request.ip));
    // A counted request's answer leaves only once its count is durable (DESIGN §4.14): the limiter writes
    // the counts of an event-loop turn together, after the turn's requests were handled. A crash before
    // then loses the answer together with its count, never one without the other.
    if (request.auth !== undefined && request.rateLimit?.allowed === true) limiter.whenCountsWritten(() => done(null, payload));
    else done(null, payload);
  });
}
