import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import accuracyRoutes from './accuracy-routes.js';
import transcribeRoutes from './transcribe-routes.js';
import streamRoutes from './stream-routes.js';

/** /v1/stt: accuracy (public, pure computation), transcription (fan-out to recognizers) and streaming. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(accuracyRoutes);
  await app.register(transcribeRoutes);
  await app.register(streamRoutes);
};
export default routes;
