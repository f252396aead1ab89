import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Health } from '../../../shared/schemas/system.js';
import { errorResponses } from '../../../shared/schemas/common.js';
import { checkHealth } from '../../services/health.js';

/** GET /health (public): database, TTS and STT checks; 503 `degraded` when the database fails. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    {
      config: { public: true, rateLimit: false },
      schema: { summary: 'Service health', tags: ['system'], response: { 200: Health, 503: Health, ...errorResponses(429) } },
    },
    async (_request, reply) => {
      const rt = app.runtime;
      const { statusCode, body } = await checkHealth({ db: rt.db, startedAt: rt.startedAt, now: rt.clock.now(), tts: rt.tts, sttHealth: rt.sttHealth, instanceId: rt.instanceId });
      return reply.code(statusCode).send(body);
    },
  );
};
export default routes;
