import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** PLACEHOLDER: routes of /tts are owned by their workstream. */
const routes: FastifyPluginAsyncTypebox = async () => {};
export default routes;
