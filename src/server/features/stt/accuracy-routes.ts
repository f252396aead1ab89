import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AccuracyRequest, AccuracyResult } from '../../../shared/schemas/stt.js';
import { errorResponses } from '../../../shared/schemas/common.js';
import { calculateAccuracy } from '../../../shared/accuracy.js';
import { getNormalizer } from '../../../shared/normalizers/index.js';

/** POST /v1/stt/calculate-accuracy (public): WER/CER of a hypothesis against a reference (DESIGN §4.12). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/stt/calculate-accuracy',
    {
      config: { public: true },
      schema: {
        tags: ['stt'],
        summary: 'Word and character error rates of a hypothesis against a reference',
        body: AccuracyRequest,
        response: { 200: AccuracyResult, ...errorResponses(400, 413, 415, 429) },
      },
    },
    async (request) => {
      const { reference, hypothesis, normalize, normalizer, alignment, entities } = request.body;
      // Unknown normalisers and undefined inputs throw validation_failed domain errors (400).
      const { name } = getNormalizer(normalizer ?? 'basic'); // checked even with normalize:false
      return calculateAccuracy(reference, hypothesis, { normalize: normalize ?? true, normalizer: name, alignment: alignment ?? false, ...(entities ? { entities } : {}) });
    },
  );
};
export default routes;
