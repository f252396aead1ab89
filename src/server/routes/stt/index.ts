import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import accuracyRoutes from './accuracy.js';
import transcribeRoutes from './transcribe.js';

/** /v1/stt: accuracy (public, pure computation) and transcription (fan-out to recognizers). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(accuracyRoutes);
  await app.register(transcribeRoutes);
};
export default routes;
