import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../shared/schemas/common.js';
import { BatchCreated, BatchRequest, SynthesizeRequest, SynthesizeResponse } from '../../../shared/schemas/tts.js';
import { requireAuth } from '../accounts/index.js';
import { requestBase } from '../audio/index.js';
import { synthesizeForUser } from './synthesis.js';
import { createBatch } from '../jobs/index.js';
import { parseIdempotencyKey } from '../jobs/index.js';

/** POST /v1/tts/synthesize (DESIGN §4.6) and POST /v1/tts/batch (§4.8). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { runtime } = app;

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
      const { audio, characters } = await synthesizeForUser(
        { db: runtime.db, blobs: runtime.blobs, instanceId: runtime.instanceId, clock: runtime.clock, tts: runtime.tts },
        { userId: auth.userId, speakerId: request.body.speaker_id, text: request.body.text, sampleRate: request.body.sample_rate },
      );
      return {
        audio_url: runtime.urls.audio({ base: requestBase(runtime.options.publicUrl, request), audioId: audio.id, now: runtime.clock.now() }),
        duration_seconds: audio.duration_seconds,
        characters_used: characters,
      };
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
      const created = await createBatch(
        { db: runtime.db, now: runtime.clock.now() },
        {
          userId: auth.userId,
          items: request.body.items,
          sampleRate: request.body.sample_rate,
          idempotencyKey: parseIdempotencyKey(request.headers['idempotency-key']),
        },
      );
      runtime.jobs.wake();
      return reply.code(201).send(created);
    },
  );
};
export default routes;
