import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Health, Liveness, Readiness } from '../../../shared/schemas/system.js';
import { errorResponses } from '../../../shared/schemas/common.js';
import { checkHealth, checkReadiness, schemaProblem } from './health.js';

/** GET /health (public): database, TTS and STT checks; 503 `degraded` when the database fails. Plus the live and ready probes. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  // What the last /health that reached the database saw, for the answers while it cannot be reached.
  let previous: Pick<Health, 'queue' | 'schema'> | undefined;
  app.get(
    '/health',
    {
      config: { public: true, rateLimit: false },
      schema: { summary: 'Service health', tags: ['system'], response: { 200: Health, 503: Health, ...errorResponses(429) } },
    },
    async (_request, reply) => {
      const rt = app.runtime;
      const { statusCode, body } = await checkHealth({
        db: rt.db,
        startedAt: rt.startedAt,
        now: rt.clock.now(),
        tts: rt.tts,
        sttHealth: rt.sttHealth,
        instanceId: rt.instanceId,
        ...(previous ? { previous } : {}),
      });
      if (body.checks.database === 'ok') previous = { queue: body.queue, schema: body.schema };
      return reply.code(statusCode).send(body);
    },
  );
  // Probes for orchestrators (DESIGN §14.2): never rate-limited, no key, cheap.
  app.get(
    '/health/live',
    { config: { public: true, rateLimit: false }, schema: { summary: 'Liveness: the process serves', tags: ['system'], response: { 200: Liveness } } },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/health/ready',
    {
      config: { public: true, rateLimit: false },
      schema: { summary: 'Readiness: database, schema and engines', tags: ['system'], response: { 200: Readiness, 503: Readiness } },
    },
    async (_request, reply) => {
      const rt = app.runtime;
      const r = await checkReadiness({ db: rt.db, tts: rt.tts, schemaProblem: () => schemaProblem(rt.db) });
      return r.ready ? reply.code(200).send({ status: 'ready' }) : reply.code(503).send({ status: 'not_ready', reason: r.reason });
    },
  );
};
export default routes;
