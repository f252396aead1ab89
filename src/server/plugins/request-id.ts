import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** Request ids look like `req_` + 32 hex chars; they name one request in logs and error bodies. */
export const genRequestId = (): string => `req_${randomUUID().replaceAll('-', '')}`;

/** Echoes the request id on every response, errors included (DESIGN §4.1). */
export function registerRequestId(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
}
