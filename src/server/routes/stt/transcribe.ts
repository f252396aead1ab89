import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** PLACEHOLDER: owned by its workstream. */
const routes: FastifyPluginAsyncTypebox = async () => {};
export default routes;
