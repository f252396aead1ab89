import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Speaker, SpeakerFacets, SpeakerPage, SpeakerQuery } from '../../../shared/schemas/speakers.js';
import { errorResponses } from '../../../shared/schemas/common.js';
import { requestBase } from '../audio/index.js';
import { speakerById, speakerPage } from './speakers.js';
import { createResponseMemo, serializedAnswer } from '../../plugins/response-memo.js';

/**
 * /v1/speakers: the public catalogue with filters and facets, and one speaker (Bearer).
 * `/facets` is a static route, so Fastify's router prefers it over `/{speaker_id}`.
 */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { runtime } = app;
  // Catalogue answers are the same for every caller within the second their sample URLs are signed in
  // (the catalogue never changes while the service runs): a request repeated within it is answered with
  // the serialized answer again (plugins/response-memo.ts). Errors are never kept.
  const answers = createResponseMemo();
  const answer = <T>(
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    make: (sampleUrl: (audioId: string) => string) => Promise<T>,
  ): T | Promise<T> => {
    const now = runtime.clock.now();
    const base = requestBase(runtime.options.publicUrl, request);
    const period = runtime.urls.expiresAt(now);
    const memoKey = `${base}\u0000${key}`;
    const kept = answers.get(period, memoKey);
    // A kept answer goes out without a promise (the handler is no async function for that reason).
    if (kept !== undefined) return serializedAnswer<T>(reply, kept);
    return make((audioId) => runtime.urls.audio({ base, audioId, now })).then((value) => {
      const body = Buffer.from(reply.serialize(value) as string);
      answers.set(period, memoKey, body);
      return serializedAnswer<T>(reply, body);
    });
  };

  app.get(
    '/v1/speakers',
    {
      config: { public: true },
      schema: {
        tags: ['speakers'],
        summary: 'List catalogue speakers (filters are exact and case-insensitive)',
        querystring: SpeakerQuery,
        response: { 200: SpeakerPage, ...errorResponses(400, 401, 429) },
      },
    },
    (request, reply) =>
      answer(request, reply, `list\u0000${JSON.stringify(request.query)}`, (sampleUrl) => {
        const { limit = 20, offset = 0, ...filters } = request.query;
        return speakerPage(runtime.db, { ...filters, limit, offset }, sampleUrl);
      }),
  );

  app.get(
    '/v1/speakers/facets',
    {
      config: { public: true },
      schema: {
        tags: ['speakers'],
        summary: 'The values each speaker filter accepts, with counts',
        response: { 200: SpeakerFacets, ...errorResponses(401, 429) },
      },
    },
    async () => runtime.speakerFacets(),
  );

  app.get(
    '/v1/speakers/:speaker_id',
    {
      schema: {
        tags: ['speakers'],
        summary: 'One speaker',
        security: [{ bearer: [] }],
        params: Type.Object({ speaker_id: Type.String() }),
        response: { 200: Speaker, ...errorResponses(401, 403, 404, 429) },
      },
    },
    (request, reply) =>
      answer(request, reply, `speaker\u0000${request.params.speaker_id}`, (sampleUrl) => speakerById(runtime.db, request.params.speaker_id, sampleUrl)),
  );
};
export default routes;
