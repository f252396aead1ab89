import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../shared/schemas/common.js';
import { StreamRequest, type StreamEventLine } from '../../../shared/schemas/stt-stream.js';
import { requireAuth } from '../accounts/index.js';
import { StreamSlots } from './stream-slots.js';

/**
 * POST /v1/stt/stream (DESIGN §13.3): NDJSON events as the providers answer, then every result. Bounded as
 * §17.5 says: 4 open streams per user, each ended by its deadline, and a client that stops reading is let
 * hold 1 MB of unread answer before its stream is closed — vendors' sockets and recognisers with it.
 */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { stt } = app.runtime.features;
  const slots = new StreamSlots();

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
      const auth = requireAuth(request);
      const limits = stt.streamLimits;
      // Held from here until every provider's stream is over (its socket or process ended).
      const release = slots.take(auth.userId, limits.perUser, limits.retryAfterSeconds);
      const gone = new AbortController();
      // A client that hangs up stops the streams still running.
      const onClose = () => gone.abort();
      const { socket } = request;
      socket.once('close', onClose);
      let run: Awaited<ReturnType<typeof stt.prepareStreams>>;
      try {
        run = await stt.prepareStreams(request.body, gone.signal);
      } catch (err) {
        socket.off('close', onClose);
        release();
        throw err;
      }
      const body = new PassThrough();
      // What the client has not read yet: in this stream, and in the socket's buffer behind it.
      const unread = () => body.writableLength + body.readableLength + socket.writableLength;
      const line = (e: StreamEventLine) => {
        if (body.writableEnded || body.destroyed) return;
        body.write(`${JSON.stringify(e)}\n`);
        if (unread() > limits.maxUnreadBytes) {
          request.log.warn({ unread_bytes: unread() }, 'stt stream closed: the client stopped reading its answer');
          gone.abort();
          body.destroy();
          socket.destroy();
        }
      };
      run(line)
        .then((results) => line({ event: 'done', results }))
        .catch((err: unknown) => request.log.error({ err }, 'streaming failed unexpectedly'))
        .finally(() => {
          socket.off('close', onClose);
          release();
          if (!body.destroyed) body.end();
        });
      return reply.header('content-type', 'application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').send(body);
    },
  );
};
export default routes;
