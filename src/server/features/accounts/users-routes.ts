import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Usage, User } from '../../../shared/schemas/users.js';
import { errorResponses } from '../../../shared/schemas/common.js';
import { requireAuth } from './auth-plugin.js';

const bearer = [{ bearer: [] }];

/** /v1/users: the caller's profile and usage of the current billing period. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/users/me',
    { schema: { summary: 'Current user', tags: ['users'], security: bearer, response: { 200: User, ...errorResponses(401, 404, 429) } } },
    // No async function: a remembered user is answered without a promise.
    (request) => app.runtime.features.accounts.me(requireAuth(request).userId),
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
    async (request) => app.runtime.features.accounts.usage(requireAuth(request).userId),
  );
};
export default routes;
