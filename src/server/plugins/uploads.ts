import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import multipart from '@fastify/multipart';
import { MAX_UPLOAD_BYTES } from '../../shared/constants.js';

const MULTIPART = 'multipart/form-data';

/**
 * Every route accepts a multipart body as @fastify/multipart's parser does — the request is marked and its
 * body left unread, so a route without uploads answers it as it answers no body. The parser itself is
 * registered only around the routes that take uploads (`withUploads`): its `onResponse` hook (an async
 * clean-up of saved files) otherwise costs every request of the service a promise.
 */
export function acceptMultipartBodies(app: FastifyInstance): void {
  app.addContentTypeParser(MULTIPART, (_request, _payload, done) => done(null));
}

/** `routes` in their own context with @fastify/multipart (`request.parts()`, `request.isMultipart()`). */
export function withUploads(routes: FastifyPluginAsync): FastifyPluginAsync {
  return async (app) => {
    // A child context has its own copy of the parsers: the one set by acceptMultipartBodies gives way here only.
    app.removeContentTypeParser(MULTIPART);
    await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });
    await app.register(routes);
  };
}
