import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, PagingQuery } from '../../../shared/schemas/common.js';
import { Dataset, DatasetCreated, DatasetPage } from '../../../shared/schemas/datasets.js';
import { requireAuth } from '../accounts/index.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import { parseDatasetCsv, type CsvDatasetRow } from './csv-dataset.js';
import { DATASET_LIMITS } from '../../../shared/constants.js';
import { DATASET_MESSAGES } from '../../../shared/dataset-rules.js';

/** Largest CSV upload (DESIGN §4.10). */
const MAX_CSV_BYTES = DATASET_LIMITS.bytes;

/** @fastify/multipart's signal that the file part passed `fileSize`. */
const isFileTooLarge = (err: unknown): boolean => (err as { code?: string } | undefined)?.code === 'FST_REQ_FILE_TOO_LARGE';

/** POST /v1/datasets/upload, GET /v1/datasets, GET /v1/datasets/{dataset_id} (DESIGN §4.10). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { datasets, audioLinks } = app.runtime.features;

  app.post(
    '/v1/datasets/upload',
    {
      schema: {
        summary: 'Upload a CSV dataset (multipart: file, name, generate_audio, language)',
        security: [{ bearer: [] }],
        consumes: ['multipart/form-data'],
        response: { 201: DatasetCreated, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      if (!request.isMultipart()) throw new DomainError('unsupported_media_type', "Expected multipart/form-data with a 'file' part");
      const fields: Record<string, string> = {};
      let parsed: { rows: CsvDatasetRow[] } | { error: unknown } | undefined;
      let tooLarge = false;
      // Parts arrive in the client's order: the CSV streams through the parser as it is read, and the
      // text fields may come before or after it.
      try {
        for await (const part of request.parts({ limits: { fileSize: MAX_CSV_BYTES, files: 1, fields: 10, fieldSize: 64 * 1024 } })) {
          if (part.type === 'file') {
            if (part.fieldname !== 'file' || parsed) {
              part.file.resume();
              continue;
            }
            const known = await datasets.speakerIds();
            parsed = await parseDatasetCsv(part.file, { speakerExists: (id) => known.has(id) }).then(
              (rows) => ({ rows }),
              (error: unknown) => ({ error }),
            );
            if (part.file.truncated || ('error' in parsed && isFileTooLarge(parsed.error))) tooLarge = true;
          } else if (typeof part.value === 'string') {
            fields[part.fieldname] ??= part.value;
          }
        }
      } catch (err) {
        if (!isFileTooLarge(err)) throw err;
        tooLarge = true;
      }
      if (tooLarge) throw validationFailed(DATASET_MESSAGES.tooBig);
      const file = parsed;
      const rows = () => {
        if (!file) throw validationFailed("Missing required file 'file'");
        if ('error' in file) throw file.error;
        return file.rows;
      };
      return reply.code(201).send(await datasets.create(auth.userId, fields, rows));
    },
  );

  app.get(
    '/v1/datasets',
    {
      schema: {
        summary: "List the caller's datasets",
        security: [{ bearer: [] }],
        querystring: PagingQuery,
        response: { 200: DatasetPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return datasets.page(auth.userId, { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 });
    },
  );

  app.get(
    '/v1/datasets/:dataset_id',
    {
      schema: {
        summary: 'One dataset with its rows',
        security: [{ bearer: [] }],
        params: Type.Object({ dataset_id: Type.String() }),
        response: { 200: Dataset, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return datasets.view(auth.userId, request.params.dataset_id, audioLinks.of(request));
    },
  );
};
export default routes;
