import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, PagingQuery } from '../../../shared/schemas/common.js';
import { Corpus, CorpusIdParams, CorpusPage, CorpusUtterancePage } from '../../../shared/schemas/corpora.js';
import { CORPUS_LIMITS } from '../../../shared/constants.js';
import { CORPUS_MESSAGES } from '../../../shared/corpus/index.js';
import { codePoints } from '../../../shared/text-rules.js';
import { requireAuth } from '../accounts/index.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import type { UploadDir } from './upload.js';
import type { ReceivedArchive } from './receive.js';
import { UploadSlots } from './upload-slots.js';

/** @fastify/multipart's signal that the file part passed `fileSize`. */
const isFileTooLarge = (err: unknown): boolean => (err as { code?: string } | undefined)?.code === 'FST_REQ_FILE_TOO_LARGE';

/** 413 for an archive past the limit, answered before the rest of the body (plugins/lingering-close.ts bounds what is read of it after). */
const tooBig = () => new DomainError('payload_too_large', CORPUS_MESSAGES.archiveTooBig);

/** Room for the text fields and part headers around the archive in a multipart body. */
const MULTIPART_OVERHEAD = 1024 * 1024;

/** `name`: 1..200 code points after trimming. */
function parseCorpusName(value: string | undefined): string {
  if (value === undefined) throw validationFailed(CORPUS_MESSAGES.nameMissing);
  const name = value.trim();
  const n = codePoints(name);
  if (n < 1 || n > CORPUS_LIMITS.name) throw validationFailed(CORPUS_MESSAGES.nameLength);
  return name;
}

/** POST/GET /v1/corpora, GET/DELETE /v1/corpora/{id}, GET /v1/corpora/{id}/utterances (DESIGN §10). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { corpora, audioLinks } = app.runtime.features;
  const slots = new UploadSlots();

  app.post(
    '/v1/corpora',
    {
      schema: {
        summary: 'Upload a recorded corpus: multipart `name` and `file` (.zip, .tar, .tar.gz; at most 2 GiB)',
        tags: ['corpora'],
        security: [{ bearer: [] }],
        consumes: ['multipart/form-data'],
        response: { 201: Corpus, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      if (!request.isMultipart()) throw new DomainError('unsupported_media_type', "Expected multipart/form-data with a 'file' part");
      const { limits } = corpora.settings;
      // A body declared far past the limit (the name and part headers take far less than 1 MiB) is
      // refused before a byte is stored; without a Content-Length the stream itself is measured.
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.archiveBytes + MULTIPART_OVERHEAD) {
        throw tooBig();
      }
      const release = slots.take(auth.userId);
      // Work on the upload stops when its client leaves (DESIGN §17.1): extraction, decoding and ffmpeg
      // are given this signal, and the folder goes in `finally` as for any other end.
      const left = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) left.abort(new DomainError('request_timeout', 'The client closed the connection before the upload was answered'));
      };
      reply.raw.once('close', onClose);
      const fields: Record<string, string> = {};
      let dir: UploadDir | undefined;
      try {
        let received: ReceivedArchive | undefined;
        try {
          // The archive is read as it arrives (a tar extracted on the way): its limit is this route's own (other routes keep 25 MB).
          for await (const part of request.parts({ limits: { fileSize: limits.archiveBytes, files: 1, fields: 10, fieldSize: 64 * 1024 } })) {
            left.signal.throwIfAborted();
            if (part.type === 'file') {
              if (part.fieldname !== 'file' || received) {
                part.file.resume();
                continue;
              }
              dir = await corpora.openUploadDir();
              received = await corpora.receive(dir, part.file, left.signal);
              if (part.file.truncated) throw tooBig();
            } else if (typeof part.value === 'string') {
              fields[part.fieldname] ??= part.value;
            }
          }
        } catch (err) {
          if (isFileTooLarge(err)) throw tooBig();
          throw err;
        }
        const name = parseCorpusName(fields.name);
        if (!received || !dir) throw validationFailed(CORPUS_MESSAGES.fileMissing);
        return reply.code(201).send(await corpora.create(auth.userId, name, dir, received, left.signal));
      } finally {
        reply.raw.off('close', onClose);
        await dir?.remove();
        release();
      }
    },
  );

  app.get(
    '/v1/corpora',
    {
      schema: {
        summary: "List the caller's corpora, newest first",
        tags: ['corpora'],
        security: [{ bearer: [] }],
        querystring: PagingQuery,
        response: { 200: CorpusPage, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return corpora.page(auth.userId, { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 });
    },
  );

  app.get(
    '/v1/corpora/:corpus_id',
    {
      schema: {
        summary: 'One corpus',
        tags: ['corpora'],
        security: [{ bearer: [] }],
        params: CorpusIdParams,
        response: { 200: Corpus, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return corpora.get(auth.userId, request.params.corpus_id);
    },
  );

  app.get(
    '/v1/corpora/:corpus_id/utterances',
    {
      schema: {
        summary: "A corpus's utterances in manifest order, each with a signed audio URL",
        tags: ['corpora'],
        security: [{ bearer: [] }],
        params: CorpusIdParams,
        querystring: PagingQuery,
        response: { 200: CorpusUtterancePage, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const paging = { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 };
      return corpora.utterances(auth.userId, request.params.corpus_id, paging, audioLinks.of(request));
    },
  );

  app.delete(
    '/v1/corpora/:corpus_id',
    {
      schema: {
        summary: 'Delete a corpus and its audio (409 while a running evaluation uses it)',
        tags: ['corpora'],
        security: [{ bearer: [] }],
        params: CorpusIdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      await corpora.delete(auth.userId, request.params.corpus_id);
      return reply.code(204).send(null);
    },
  );
};
export default routes;
