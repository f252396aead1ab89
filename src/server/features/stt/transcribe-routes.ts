import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../../shared/schemas/common.js';
import { ProviderList, TranscribeRequest, TranscribeResponse } from '../../../shared/schemas/stt.js';
import { requireAuth } from '../accounts/index.js';

/** POST /v1/stt/transcribe (fan-out to recognizers, DESIGN §4.11) and GET /v1/stt/providers (extension). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { stt } = app.runtime.features;

  app.post(
    '/v1/stt/transcribe',
    {
      schema: {
        summary: 'Transcribe one audio URL with up to nine providers at once',
        tags: ['stt'],
        security: [{ bearer: [] }],
        body: TranscribeRequest,
        response: { 200: TranscribeResponse, ...errorResponses(400, 401, 403, 404, 410, 413, 415, 429, 500, 503) },
      },
    },
    async (request) => {
      requireAuth(request);
      // A client that hangs up stops the providers still running (vendor calls, PocketSphinx).
      const gone = new AbortController();
      const onClose = () => gone.abort();
      request.socket.once('close', onClose);
      try {
        return await stt.transcribe(request.body, {
          signal: gone.signal,
          logError: (err, provider) => request.log.error({ err, provider }, 'STT adapter failed unexpectedly'),
        });
      } finally {
        request.socket.off('close', onClose);
      }
    },
  );

  app.get(
    '/v1/stt/providers',
    {
      schema: {
        summary: 'Every STT provider id with its adapter, model and state (no secrets)',
        tags: ['stt'],
        security: [{ bearer: [] }],
        response: { 200: ProviderList, ...errorResponses(401, 429, 503) },
      },
    },
    async (request) => {
      requireAuth(request);
      return { items: stt.providers() };
    },
  );
};
export default routes;
