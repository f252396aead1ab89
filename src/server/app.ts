import type { RequestListener, Server } from 'node:http';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swagger from '@fastify/swagger';
import { VERSION } from '../shared/version.js';
import { ErrorBody } from '../shared/schemas/common.js';
import type { Runtime } from './runtime.js';
import { requestLoggerFactory } from './logger.js';
import { genRequestId, registerRequestId } from './plugins/request-id.js';
import { logRequestLine, registerRequestLog, routeOf } from './plugins/request-log.js';
import { registerDrain } from './plugins/drain.js';
import { registerLingeringClose } from './plugins/lingering-close.js';
import { HTTP_SERVER_OPTIONS } from './listener.js';
import { registerErrorHandling, sendFrameworkError } from './plugins/errors.js';
import { createClientErrorHandler, registerHostCheck } from './plugins/http-errors.js';
import { registerValidation } from './plugins/validation.js';
import { serializeOnFirstCall } from './plugins/lazy-compile.js';
import { registerAuthentication, registerAuthorization } from './features/accounts/auth-plugin.js';
import { rateLimitHeaders, registerRateLimit } from './features/limits/rate-limit-plugin.js';
import { registerJsonBody } from './plugins/json-body.js';
import { registerMetrics } from './features/ops/metrics-plugin.js';
import { acceptMultipartBodies, withUploads } from './plugins/uploads.js';
import healthRoutes from './features/ops/routes.js';
import speakersRoutes from './features/synthesis/speakers-routes.js';
import ttsRoutes from './features/synthesis/tts-routes.js';
import jobsRoutes from './features/jobs/routes.js';
import sttRoutes from './features/stt/routes.js';
import datasetsRoutes from './features/datasets/routes.js';
import usersRoutes from './features/accounts/users-routes.js';
import keysRoutes from './features/accounts/keys-routes.js';
import billingRoutes from './features/billing/routes.js';
import audioRoutes from './features/audio/routes.js';
import evaluationsRoutes from './features/evaluations/routes.js';
import corporaRoutes from './features/corpora/routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    runtime: Runtime;
  }
  interface FastifyContextConfig {
    /** No Bearer key needed (the spec's public endpoints, signed audio URLs, portal pages). */
    public?: boolean;
  }
}

/** JSON bodies over 1 MB answer 413 (DESIGN §4.2); uploads have their own multipart limits. */
export const JSON_BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  /** Pino logger options instead of the runtime's logger (a test that reads the log lines). */
  logger?: Record<string, unknown>;
  /**
   * The HTTP server to answer on, already listening (start.ts opens it before the runtime is built,
   * DESIGN §14.14); it receives Fastify's request handler. Default: Fastify's own, for `listen` or `inject`.
   */
  serverFactory?: (handler: RequestListener) => Server;
}

/** Builds the whole HTTP app over `runtime` without listening (tests call `inject` or `listen(0)`). */
export async function buildApp(runtime: Runtime, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // Request loggers carry their id for the server logger's mixin (logger.ts requestLoggerFactory).
    ...(options.logger ? { logger: options.logger } : { loggerInstance: runtime.logger, childLoggerFactory: requestLoggerFactory }),
    genReqId: genRequestId,
    // Fastify's incoming/completed pair gives way to one line per request (plugins/request-log.ts, DESIGN §14.16).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: JSON_BODY_LIMIT,
    // Client address, scheme and host come from X-Forwarded-* only when the connection is from a proxy the
    // operator named (--trust-proxy); anyone else could claim any address and dodge the per-IP limit.
    trustProxy: runtime.options.trustProxy && runtime.options.trustProxy.length > 0 ? [...runtime.options.trustProxy] : false,
    // A draining instance still answers what reaches it, closing its connections (plugins/drain.ts).
    return503OnClosing: false,
    // Ids are at most ~80 chars; longer path params answer 414 in the error envelope.
    routerOptions: { maxParamLength: 500 },
    // Router errors (bad URL encoding, over-long params) skip every hook: answer them in the envelope here.
    frameworkErrors: (error, request, reply) => {
      // No hook sees these: their one request line and their count are written here once answered (§14.16).
      reply.raw.once('finish', () => {
        logRequestLine(request, reply);
        runtime.metrics.observeRequest(request.method, routeOf(request), reply.statusCode, reply.elapsedTime / 1000);
      });
      sendFrameworkError(error, request, reply, rateLimitHeaders(runtime.rateLimiter.peekAnonymous(request.ip)));
    },
    // Requests Node's parser refuses (bad Content-Length, CR/LF/NUL in headers, 431) get the envelope too,
    // and so does a missing Host, which Node would answer bare (see plugins/http-errors.ts).
    clientErrorHandler: createClientErrorHandler({ requestId: genRequestId, headersFor: (ip) => rateLimitHeaders(runtime.rateLimiter.peekAnonymous(ip)) }),
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : { http: HTTP_SERVER_OPTIONS }),
    // Response serializers are built on a route's first answer, not all at start (plugins/lazy-compile.ts).
    schemaController: { compilersFactory: { buildSerializer: serializeOnFirstCall() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('runtime', runtime);
  registerValidation(app);
  registerErrorHandling(app);
  registerRequestId(app);
  registerRequestLog(app);
  registerDrain(app);
  // After the drain: it takes off the `Connection: close` the drain puts on an answer given before its body.
  registerLingeringClose(app);
  registerHostCheck(app);
  // Order matters: identify the key, count the request under it (or the IP), then answer 401/403.
  registerAuthentication(app);
  registerRateLimit(app);
  registerAuthorization(app);
  registerJsonBody(app);
  registerMetrics(app, runtime.metrics, runtime.options.metricsToken);
  app.addSchema(ErrorBody);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'voxctl service API', version: VERSION },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  acceptMultipartBodies(app);

  for (const routes of [
    healthRoutes,
    speakersRoutes,
    ttsRoutes,
    jobsRoutes,
    sttRoutes,
    withUploads(datasetsRoutes),
    usersRoutes,
    keysRoutes,
    billingRoutes,
    withUploads(audioRoutes),
    evaluationsRoutes,
    withUploads(corporaRoutes),
  ]) {
    await app.register(routes);
  }

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  await app.ready();
  return app;
}
