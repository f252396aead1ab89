import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Speaker, SpeakerFacets, SpeakerPage, SpeakerQuery } from '../../../shared/schemas/speakers.js';
import { errorResponses } from '../../../shared/schemas/common.js';
import { requestBase } from '../../services/audio/audio-urls.js';
import { speakerById, speakerPage } from '../../services/synthesis/speakers.js';

/**
 * /v1/speakers: the public catalogue with filters and facets, and one speaker (Bearer).
 * `/facets` is a static route, so Fastify's router prefers it over `/{speaker_id}`.
 */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { runtime } = app;
  const signer = (request: { protocol: string; host: string }) => {
    const base = requestBase(runtime.options.publicUrl, request);
    const now = runtime.clock.now();
    return (audioId: string) => runtime.urls.audio({ base, audioId, now });
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
    async (request) => {
      const { limit = 20, offset = 0, ...filters } = request.query;
      return speakerPage(runtime.db, { ...filters, limit, offset }, signer(request));
    },
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
    async (request) => speakerById(runtime.db, request.params.speaker_id, signer(request)),
  );
};
export default routes;
