import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../shared/schemas/common.js';
import { AudioUploaded } from '../../../shared/schemas/tts.js';
import { requireAuth } from '../accounts/index.js';
import { DomainError } from '../../../shared/errors.js';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants.js';

/** GET /v1/audio/{id}.wav (signed, public) and POST /v1/audio (upload) — DESIGN §4.7. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { audio, audioLinks } = app.runtime.features;

  app.get(
    '/v1/audio/:audio_id.wav',
    {
      config: { public: true, rateLimit: false },
      schema: {
        summary: 'Download audio through a signed URL',
        params: Type.Object({ audio_id: Type.String() }),
        querystring: Type.Object({ expires: Type.Optional(Type.String()), sig: Type.Optional(Type.String()) }),
        response: { 200: Type.Any({ description: 'The audio file' }), 206: Type.Any({ description: 'The requested byte range' }), ...errorResponses(403, 404, 410, 416, 500) },
      },
    },
    async (request, reply) => {
      const { contentType, size, range, body } = await audio.download(request.params.audio_id, request.query, request.headers.range);
      reply.header('Content-Type', contentType).header('Accept-Ranges', 'bytes').header('Cache-Control', 'private, max-age=86400');
      if (!range) return reply.header('Content-Length', String(size)).send(body);
      return reply
        .code(206)
        .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
        .header('Content-Length', String(range.end - range.start + 1))
        .send(body);
    },
  );

  app.post(
    '/v1/audio',
    {
      schema: {
        summary: 'Upload a WAV, MP3 or M4A file (for transcription)',
        security: [{ bearer: [] }],
        consumes: ['multipart/form-data'],
        response: { 201: AudioUploaded, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      if (!request.isMultipart()) throw new DomainError('unsupported_media_type', "Expected multipart/form-data with a 'file' part");
      let bytes: Buffer | undefined;
      for await (const part of request.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } })) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file' || bytes) {
            part.file.resume();
            continue;
          }
          try {
            bytes = await part.toBuffer();
          } catch (err) {
            if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new DomainError('payload_too_large', 'File exceeds 25 MB');
            throw err;
          }
        }
      }
      if (!bytes) throw new DomainError('validation_failed', "Missing required file part 'file'");
      return reply.code(201).send(await audio.upload(auth.userId, bytes, audioLinks.of(request)));
    },
  );
};
export default routes;
