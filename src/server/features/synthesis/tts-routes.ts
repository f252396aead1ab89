import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../shared/schemas/common.js';
import { BatchCreated, BatchRequest, SynthesizeRequest, SynthesizeResponse } from '../../../shared/schemas/tts.js';
import { requireAuth } from '../accounts/index.js';

/** POST /v1/tts/synthesize (DESIGN §4.6) and POST /v1/tts/batch (§4.8). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { synthesis, jobs, audioLinks } = app.runtime.features;

  app.post(
    '/v1/tts/synthesize',
    {
      schema: {
        summary: 'Synthesise one text to a WAV file',
        security: [{ bearer: [] }],
        body: SynthesizeRequest,
        response: { 200: SynthesizeResponse, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return synthesis.synthesize(auth.userId, request.body, audioLinks.of(request));
    },
  );

  app.post(
    '/v1/tts/batch',
    {
      schema: {
        summary: 'Queue up to 100 texts as a batch job',
        security: [{ bearer: [] }],
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: BatchRequest,
        response: { 201: BatchCreated, ...errorResponses(400, 401, 403, 404, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      return reply.code(201).send(await jobs.createBatch(auth.userId, request.body, request.headers['idempotency-key']));
    },
  );
};
export default routes;
