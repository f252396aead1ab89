import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../../shared/schemas/common.js';
import {
  CreateEvaluationRequest,
  EvaluationCompare,
  EvaluationCompareQuery,
  EvaluationCreated,
  EvaluationDetail,
  EvaluationListQuery,
  EvaluationPage,
  EvaluationUtterancePage,
  EvaluationUtteranceQuery,
  RerunEvaluationRequest,
} from '../../../shared/schemas/evaluations.js';
import { requireAuth } from '../accounts/index.js';
import { DomainError } from '../../../shared/errors.js';
import { requestBase } from '../audio/index.js';
import { refundCharacters } from '../limits/index.js';
import { createEvaluation } from './create.js';
import { rerunEvaluation } from './rerun.js';
import { compareEvaluations } from './compare.js';
import { configuredFrom, describeFrom, labelsFrom, streamingFrom } from './setup.js';
import { baselineComparison } from './report/baseline.js';
import { evaluationSource } from './source.js';
import { readCorpusForEvaluation } from './corpus-reader.js';
import {
  allUtterances,
  cancelEvaluationFor,
  EVALUATION_NOT_FOUND,
  evaluationOf,
  getEvaluation,
  listEvaluations,
  utterancePage,
} from './service.js';
import { evaluationLists, evaluationPrices, toEvaluationDetail, toEvaluationListItem, toEvaluationUtterance, type ViewContext } from './views.js';
import { renderEvaluationReport } from './report/html.js';
import { REPORT_CSP } from './report/style.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: not counted in the per-IP bucket (signed URLs are already authorised, DESIGN §7). */
    rateLimit?: boolean;
  }
}

const EvaluationParams = Type.Object({ evaluation_id: Type.String() });

/** The evaluation endpoints of DESIGN §8: create, list, show, utterances, cancel, and the signed report. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { runtime } = app;
  const signers = (request: FastifyRequest): ViewContext => {
    const base = requestBase(runtime.options.publicUrl, request);
    const now = runtime.clock.now();
    return {
      report: (evaluationId) => runtime.urls.report({ base, evaluationId, now }),
      audio: (audioId) => runtime.urls.audio({ base, audioId, now }),
      providerLabel: labelsFrom(runtime.stt),
    };
  };

  app.post(
    '/v1/evaluations',
    {
      schema: {
        summary: 'Start an evaluation: synthesise texts with speakers, degrade, transcribe, score',
        security: [{ bearer: [] }],
        body: CreateEvaluationRequest,
        response: { 201: EvaluationCreated, ...errorResponses(400, 401, 403, 404, 413, 429, 501) },
      },
      // Exactly one source is the body's first rule (DESIGN §10.5): checked before the schema's.
      preValidation: async (request) => {
        evaluationSource(request.body);
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const created = await createEvaluation(
        {
          db: runtime.db,
          now: runtime.clock.now(),
          describe: describeFrom(runtime.stt),
          isConfigured: configuredFrom(runtime.stt),
          canStream: streamingFrom(runtime.stt),
          corpora: readCorpusForEvaluation,
        },
        { userId: auth.userId, body: request.body },
      );
      runtime.evaluations.wake();
      return reply.code(201).send(created);
    },
  );

  app.post(
    '/v1/evaluations/:evaluation_id/rerun',
    {
      schema: {
        summary: 'Run an evaluation again: same texts, speakers, conditions, providers, normaliser and seed (DESIGN §11.2)',
        security: [{ bearer: [] }],
        params: EvaluationParams,
        body: RerunEvaluationRequest,
        response: { 201: EvaluationCreated, ...errorResponses(400, 401, 403, 404, 429) },
      },
      // The body is optional: a rerun without one (as before `name` existed) keeps the baseline's name.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const { name } = request.body;
      const created = await rerunEvaluation(
        { db: runtime.db, now: runtime.clock.now(), describe: describeFrom(runtime.stt), corpora: readCorpusForEvaluation },
        { id: request.params.evaluation_id, userId: auth.userId, ...(name !== undefined ? { name } : {}) },
      );
      runtime.evaluations.wake();
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/v1/evaluations/:evaluation_id/compare',
    {
      schema: {
        summary: 'Compare an evaluation with a baseline on their matched utterances (DESIGN §11.3)',
        security: [{ bearer: [] }],
        params: EvaluationParams,
        querystring: EvaluationCompareQuery,
        response: { 200: EvaluationCompare, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return compareEvaluations(runtime.db, { id: request.params.evaluation_id, baselineId: request.query.baseline, userId: auth.userId });
    },
  );

  app.get(
    '/v1/evaluations',
    {
      schema: {
        summary: "List the caller's evaluations, newest first",
        security: [{ bearer: [] }],
        querystring: EvaluationListQuery,
        response: { 200: EvaluationPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const limit = request.query.limit ?? 20;
      const offset = request.query.offset ?? 0;
      const { rows, total } = await listEvaluations(runtime.db, { userId: auth.userId, status: request.query.status, limit, offset });
      const urls = signers(request);
      return { items: rows.map((r) => toEvaluationListItem(r, urls)), total, limit, offset, has_more: offset + rows.length < total };
    },
  );

  app.get(
    '/v1/evaluations/:evaluation_id',
    {
      schema: {
        summary: 'Progress, summary and comparisons of one evaluation',
        security: [{ bearer: [] }],
        params: EvaluationParams,
        response: { 200: EvaluationDetail, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return toEvaluationDetail(await evaluationOf(runtime.db, request.params.evaluation_id, auth.userId), signers(request));
    },
  );

  app.get(
    '/v1/evaluations/:evaluation_id/utterances',
    {
      schema: {
        summary: "An evaluation's utterance results, filtered",
        security: [{ bearer: [] }],
        params: EvaluationParams,
        querystring: EvaluationUtteranceQuery,
        response: { 200: EvaluationUtterancePage, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const row = await evaluationOf(runtime.db, request.params.evaluation_id, auth.userId);
      const limit = request.query.limit ?? 20;
      const offset = request.query.offset ?? 0;
      const { rows, total } = await utterancePage(runtime.db, row, request.query, { limit, offset });
      const lists = evaluationLists(row);
      const urls = signers(request);
      return { items: rows.map((u) => toEvaluationUtterance(u, lists, urls)), total, limit, offset, has_more: offset + rows.length < total };
    },
  );

  app.post(
    '/v1/evaluations/:evaluation_id/cancel',
    {
      schema: {
        summary: 'Cancel an evaluation; characters not yet synthesised are refunded',
        security: [{ bearer: [] }],
        params: EvaluationParams,
        response: { 200: EvaluationDetail, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const row = await cancelEvaluationFor(
        { db: runtime.db, now: runtime.clock.now(), refund: refundCharacters },
        { id: request.params.evaluation_id, userId: auth.userId },
      );
      return toEvaluationDetail(row, signers(request));
    },
  );

  app.get(
    '/v1/evaluations/:evaluation_id/report.html',
    {
      config: { public: true, rateLimit: false },
      schema: {
        summary: 'The HTML report of an evaluation through a signed URL',
        params: EvaluationParams,
        querystring: Type.Object({ expires: Type.Optional(Type.String()), sig: Type.Optional(Type.String()) }),
        response: { 200: Type.String({ description: 'A self-contained HTML page' }), ...errorResponses(403, 404, 410) },
      },
    },
    async (request, reply) => {
      // As audio URLs: existence first (404), then a valid (403), unexpired (410) signature.
      const row = await getEvaluation(runtime.db, request.params.evaluation_id);
      if (!row) throw new DomainError('evaluation_not_found', EVALUATION_NOT_FOUND);
      const now = runtime.clock.now();
      const check = runtime.urls.verifyReport({ evaluationId: row.id, expires: request.query.expires, sig: request.query.sig, now });
      if (check === 'tampered') throw new DomainError('invalid_signature', 'Invalid report URL signature');
      if (check === 'expired') throw new DomainError('url_expired', 'Report URL has expired');
      const urls = signers(request);
      const lists = evaluationLists(row);
      const html = renderEvaluationReport({
        evaluation: toEvaluationDetail(row, urls),
        utterances: (await allUtterances(runtime.db, row.id)).map((u) => toEvaluationUtterance(u, lists, urls)),
        generatedAt: now,
        baseline: await baselineComparison(runtime.db, row),
        prices: evaluationPrices(row),
        adapters: Object.fromEntries(runtime.stt.states().map((p) => [p.id, p.adapter])),
      });
      return reply
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Content-Security-Policy', REPORT_CSP)
        .header('Cache-Control', 'private, no-store')
        .send(html);
    },
  );
};
export default routes;
