import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../shared/schemas/common.js';
import { AudioUploaded } from '../../../shared/schemas/tts.js';
import { requireAuth } from '../accounts/index.js';
import { ApiError } from '../../errors.js';
import { DomainError } from '../../../shared/errors.js';
import { AUDIO_ID_PATTERN, requestBase } from './audio-urls.js';
import { getAudio, openAudio, type AudioFormat } from './audio-store.js';
import { resolveRange } from './byte-range.js';
import { SAMPLE_PREFIX } from '../synthesis/index.js';
import { storeUpload } from './uploads.js';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants.js';

const CONTENT_TYPES: Record<AudioFormat, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', m4a: 'audio/mp4' };

/** GET /v1/audio/{id}.wav (signed, public) and POST /v1/audio (upload) — DESIGN §4.7. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { runtime } = app;
  const { samples } = runtime;

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
      const audioId = request.params.audio_id;
      // Existence first: an unknown id is 404 whatever its signature; a known one then needs a valid,
      // unexpired signature (403 / 410). Samples are only synthesised behind a valid signature.
      if (!AUDIO_ID_PATTERN.test(audioId)) throw new DomainError('audio_not_found', 'Audio not found');
      const isSample = audioId.startsWith(SAMPLE_PREFIX);
      if (isSample ? !(await samples.exists(audioId)) : !(await getAudio(runtime.db, audioId))) throw new DomainError('audio_not_found', 'Audio not found');
      const check = runtime.urls.verifyAudio({ audioId, expires: request.query.expires, sig: request.query.sig, now: runtime.clock.now() });
      if (check === 'tampered') throw new DomainError('invalid_signature', 'Invalid audio URL signature');
      if (check === 'expired') throw new DomainError('url_expired', 'Audio URL has expired');
      const row = isSample ? await samples.get(audioId) : await getAudio(runtime.db, audioId);
      if (!row) throw new DomainError('audio_not_found', 'Audio not found');
      const size = await runtime.blobs.size(row.path);
      if (size === undefined) throw new DomainError('audio_not_found', 'Audio not found');
      // Players seek with Range; a range past the end is 416 with the size, anything malformed gets the whole file.
      const range = resolveRange(request.headers.range, size);
      if (range === 'unsatisfiable') {
        throw new ApiError('range_not_satisfiable', 'Requested range not satisfiable', { headers: { 'Content-Range': `bytes */${size}` } });
      }
      const body = await openAudio(runtime.blobs, row, range);
      if (!body) throw new DomainError('audio_not_found', 'Audio not found');
      reply.header('Content-Type', CONTENT_TYPES[row.format]).header('Accept-Ranges', 'bytes').header('Cache-Control', 'private, max-age=86400');
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
      const row = await storeUpload({ db: runtime.db, blobs: runtime.blobs, clock: runtime.clock }, { userId: auth.userId, bytes });
      return reply.code(201).send({
        audio_id: row.id,
        audio_url: runtime.urls.audio({ base: requestBase(runtime.options.publicUrl, request), audioId: row.id, now: runtime.clock.now() }),
        duration_seconds: row.duration_seconds,
      });
    },
  );
};
export default routes;
