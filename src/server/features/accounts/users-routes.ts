import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Usage, User } from '../../../shared/schemas/users.js';
import { errorResponses } from '../../../shared/schemas/common.js';
import { requireAuth } from './auth-plugin.js';
import { getUser, toUser } from './users.js';
import { getUsage } from '../limits/index.js';
import { mapSettled } from '../../../shared/maybe-promise.js';

const bearer = [{ bearer: [] }];

/** /v1/users: the caller's profile and usage of the current billing period. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/users/me',
    { schema: { summary: 'Current user', tags: ['users'], security: bearer, response: { 200: User, ...errorResponses(401, 404, 429) } } },
    // No async function: a remembered user is answered without a promise.
    (request) => mapSettled(getUser(app.runtime.db, requireAuth(request).userId), toUser),
  );

  app.get(
    '/v1/users/usage',
    {
      schema: {
        summary: 'Usage of the current billing period',
        tags: ['users'],
        security: bearer,
        response: { 200: Usage, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      const rt = app.runtime;
      return getUsage(rt.db, { userId, now: rt.clock.now(), requestsToday: await rt.rateLimiter.requestsToday(userId) });
    },
  );
};
export default routes;
