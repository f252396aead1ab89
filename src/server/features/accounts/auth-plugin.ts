import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bindCaller } from '../../logger.js';
import type { Tier } from '../../../shared/schemas/users.js';
import { forbidden, unauthorized } from '../../errors.js';
import { authenticateApiKey } from './keys.js';
import { whenSettled } from '../../../shared/maybe-promise.js';

/** The caller behind a valid Bearer key; the tier is read from the database on every request. */
export interface AuthContext {
  userId: string;
  keyId: string;
  scope: 'full' | 'read';
  tier: Tier;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request carried a valid key (also on public routes). */
    auth?: AuthContext;
    /** An Authorization header was sent but names no active key: 401 except on public routes. */
    authRejected?: boolean;
  }
  interface FastifyContextConfig {
    /** A GET that can still change the account (the billing portal): 403 for a `read` key, like a write. */
    fullScope?: boolean;
    /** The route reads `Authorization` itself (the metrics token): it is not an API key to look up. */
    ownBearer?: boolean;
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The caller of a Bearer route; throws 401 when the request has no valid key. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized();
  return request.auth;
}

/**
 * Identifies the caller from `Authorization: Bearer <key>` without rejecting anything yet, so the rate
 * limiter (registered next) counts the request under the key — or the client IP — before any 401.
 */
export function registerAuthentication(app: FastifyInstance): void {
  app.decorateRequest('auth', undefined);
  app.decorateRequest('authRejected', false);
  const { db, clock } = app.runtime;
  /** Records who the key names (or that it names no one). */
  const identify = (request: FastifyRequest, identity: AuthContext | undefined): void => {
    if (identity) {
      request.auth = identity;
      // Request lines say who asked (DESIGN §14.5): the ids, never the key. The request's logger is its own
      // (Fastify made it for this request, and reply.log is the same one).
      bindCaller(request.log, { user_id: identity.userId, key_id: identity.keyId });
    } else request.authRejected = true;
  };
  // A callback hook: a remembered key is known at once, and an async hook would cost it a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers.authorization;
    if (header === undefined || request.routeOptions.config.ownBearer === true) return done();
    const key = BEARER.exec(header)?.[1];
    if (key === undefined) {
      identify(request, undefined);
      return done();
    }
    whenSettled(
      authenticateApiKey(db, key, clock.now()),
      (identity) => {
        identify(request, identity);
        done();
      },
      (error) => done(error as Error),
    );
  });
}

/**
 * Enforces what authentication found, in `onRequest` so a 401/403 comes before the body is read:
 * a public route answers every key, bad or read-only, as it answers no key; elsewhere a bad key → 401,
 * no key → 401 (unknown route: 404), a `read` key → 403 on any POST/PUT/PATCH/DELETE and on `fullScope`
 * routes (DESIGN §4.15).
 */
export function registerAuthorization(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const config = request.routeOptions.config;
    if (config.public === true) return done();
    if (request.authRejected) return done(unauthorized());
    if (!request.auth) {
      return done(request.is404 ? undefined : unauthorized());
    }
    if (request.auth.scope === 'read' && (MUTATING.has(request.method) || config.fullScope === true)) {
      return done(forbidden('Insufficient permissions'));
    }
    done();
  });
}
