import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../shared/schemas/common.js';
import { Job, JobPage, JobQuery } from '../../../shared/schemas/tts.js';
import { requireAuth } from '../accounts/index.js';

/** GET /v1/jobs (newest first, status filter) and GET /v1/jobs/{job_id} (DESIGN §4.8, §4.9). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { jobs, audioLinks } = app.runtime.features;

  app.get(
    '/v1/jobs',
    {
      schema: {
        summary: "List the caller's batch jobs",
        security: [{ bearer: [] }],
        querystring: JobQuery,
        response: { 200: JobPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const { status, limit = 20, offset = 0 } = request.query;
      return jobs.page(auth.userId, { ...(status ? { status } : {}), limit, offset });
    },
  );

  app.get(
    '/v1/jobs/:job_id',
    {
      schema: {
        summary: 'Progress and results of one batch job',
        security: [{ bearer: [] }],
        params: Type.Object({ job_id: Type.String() }),
        response: { 200: Job, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return jobs.view(auth.userId, request.params.job_id, audioLinks.of(request));
    },
  );
};
export default routes;
