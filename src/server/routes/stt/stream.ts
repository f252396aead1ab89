import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../shared/schemas/common.js';
import { StreamRequest, type StreamEventLine } from '../../../shared/schemas/stt-stream.js';
import { requireAuth } from '../../plugins/auth.js';
import { loadAudio } from '../../services/audio/audio-fetch.js';
import { prepareStreams } from '../../services/stt/stt-streaming.js';

/** POST /v1/stt/stream (DESIGN §13.3): NDJSON events as the providers answer, then every result. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { runtime } = app;

  app.post(
    '/v1/stt/stream',
    {
      schema: {
        summary: 'Stream one audio URL to several streaming providers at once and measure their latency',
        description: 'Answers `application/x-ndjson`: one event a line (`start`, `partial`, `final`, `result`, `done`), see StreamEventLine.',
        tags: ['stt'],
        security: [{ bearer: [] }],
        body: StreamRequest,
        response: { 200: Type.Unknown({ description: 'application/x-ndjson: StreamEventLine per line' }), ...errorResponses(400, 401, 403, 404, 410, 413, 415, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      requireAuth(request);
      const gone = new AbortController();
      const run = await prepareStreams(
        {
          registry: runtime.stt,
          scheduler: runtime.streamScheduler,
          signal: gone.signal,
          loadAudio: (url) =>
            loadAudio(
              { db: runtime.db, blobs: runtime.blobs, urls: runtime.urls, clock: runtime.clock, allowPrivate: runtime.options.allowPrivateAudioUrls, hooks: runtime.audioFetch },
              url,
            ),
        },
        request.body,
      );
      const body = new PassThrough();
      const line = (e: StreamEventLine) => {
        if (!body.writableEnded) body.write(`${JSON.stringify(e)}\n`);
      };
      // A client that hangs up stops the streams still running.
      const onClose = () => gone.abort();
      request.socket.once('close', onClose);
      run(line)
        .then((results) => line({ event: 'done', results }))
        .catch((err: unknown) => request.log.error({ err }, 'streaming failed unexpectedly'))
        .finally(() => {
          request.socket.off('close', onClose);
          body.end();
        });
      return reply.header('content-type', 'application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').send(body);
    },
  );
};
export default routes;
