import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
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
import { evaluationSource } from './source.js';
import { REPORT_CSP } from './report/style.js';
import { CALL_FILES } from './conversations/exports.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: not counted in the per-IP bucket (signed URLs are already authorised, DESIGN §7). */
    rateLimit?: boolean;
  }
}

const EvaluationParams = Type.Object({ evaluation_id: Type.String() });

/** The evaluation endpoints of DESIGN §8: create, list, show, utterances, cancel, and the signed report. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { evaluations } = app.runtime.features;

  app.post(
    '/v1/evaluations',
    {
      schema: {
        summary: 'Start an evaluation: synthesise texts with speakers, degrade, transcribe, score',
        security: [{ bearer: [] }],
        body: CreateEvaluationRequest,
        response: { 201: EvaluationCreated, ...errorResponses(400, 401, 403, 404, 413, 429) },
      },
      // Exactly one source is the body's first rule (DESIGN §10.5): checked before the schema's.
      preValidation: async (request) => {
        evaluationSource(request.body);
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      return reply.code(201).send(await evaluations.create(auth.userId, request.body));
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
      return reply.code(201).send(await evaluations.rerun(auth.userId, request.params.evaluation_id, request.body.name));
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
      return evaluations.compare(auth.userId, request.params.evaluation_id, request.query.baseline);
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
      const { status, limit = 20, offset = 0 } = request.query;
      return evaluations.page(auth.userId, { ...(status ? { status } : {}), limit, offset }, evaluations.links(request));
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
      return evaluations.detail(auth.userId, request.params.evaluation_id, evaluations.links(request));
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
      return evaluations.utterances(auth.userId, request.params.evaluation_id, request.query, evaluations.links(request));
    },
  );

  // A call's NIST files (DESIGN §16.2, §16.4): the truth it was built from, and each provider's speaker segments.
  for (const file of CALL_FILES) {
    app.get(
      `/v1/evaluations/:evaluation_id/calls/:n/${file}`,
      {
        schema: {
          summary: file === 'hypothesis.rttm' ? "A provider's speaker segments of one call as NIST RTTM (DESIGN §16.4)" : `The exact truth of one call as NIST ${file.endsWith('stm') ? 'STM' : 'RTTM'} (DESIGN §16.2)`,
          security: [{ bearer: [] }],
          params: Type.Object({ evaluation_id: Type.String(), n: Type.Integer({ minimum: 1 }) }),
          querystring: Type.Object({ provider: Type.Optional(Type.String()), condition: Type.Optional(Type.String()) }),
          response: { 200: Type.String({ description: file }), ...errorResponses(400, 401, 404, 409) },
        },
      },
      async (request, reply) => {
        const auth = requireAuth(request);
        const text = await evaluations.callFile(auth.userId, request.params.evaluation_id, request.params.n, file, request.query);
        return reply.header('Content-Type', 'text/plain; charset=utf-8').send(text);
      },
    );
  }

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
      return evaluations.cancel(auth.userId, request.params.evaluation_id, evaluations.links(request));
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
      const html = await evaluations.report(request.params.evaluation_id, request.query, evaluations.links(request));
      return reply
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Content-Security-Policy', REPORT_CSP)
        .header('Cache-Control', 'private, no-store')
        .send(html);
    },
  );
};
export default routes;
