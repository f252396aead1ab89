import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiKeyPage, CreateKeyRequest, CreatedKey } from '../../../shared/schemas/users.js';
import { PagingQuery, errorResponses } from '../../../shared/schemas/common.js';
import { requireAuth } from './auth-plugin.js';

const bearer = [{ bearer: [] }];

/** /v1/keys (DESIGN §4.15): create (key shown once), list without secrets, revoke. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/keys',
    {
      schema: {
        summary: 'Create an API key',
        tags: ['keys'],
        security: bearer,
        body: CreateKeyRequest,
        response: { 201: CreatedKey, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
      // Both fields are optional, so a POST without any body means "a full key named default".
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    async (request, reply) => {
      const { userId } = requireAuth(request);
      return reply.code(201).send(await app.runtime.features.accounts.createKey(userId, request.body));
    },
  );

  app.get(
    '/v1/keys',
    {
      schema: {
        summary: 'List API keys',
        tags: ['keys'],
        security: bearer,
        querystring: PagingQuery,
        response: { 200: ApiKeyPage, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      return app.runtime.features.accounts.keys(userId, { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 });
    },
  );

  app.delete(
    '/v1/keys/:id',
    {
      schema: {
        summary: 'Revoke an API key',
        tags: ['keys'],
        security: bearer,
        params: Type.Object({ id: Type.String() }),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      await app.runtime.features.accounts.deleteKey(auth, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
export default routes;
