import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AccuracyRequest, AccuracyResult } from '../../../shared/schemas/stt.js';
import { errorResponses } from '../../../shared/schemas/common.js';
import { AccuracyInputError, calculateAccuracy } from '../../../shared/accuracy.js';
import { getNormalizer, UnknownNormalizerError } from '../../../shared/normalizers/index.js';
import { validationFailed } from '../../errors.js';

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
      const { reference, hypothesis, normalize, normalizer, alignment } = request.body;
      try {
        const { name } = getNormalizer(normalizer ?? 'basic'); // checked even with normalize:false
        return calculateAccuracy(reference, hypothesis, { normalize: normalize ?? true, normalizer: name, alignment: alignment ?? false });
      } catch (err) {
        if (err instanceof AccuracyInputError || err instanceof UnknownNormalizerError) throw validationFailed(err.message);
        throw err;
      }
    },
  );
};
export default routes;
