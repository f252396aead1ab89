/**
 * The evaluations feature as its routes use it (DESIGN §8, §10–§13, §15): created, rerun, compared,
 * listed, shown, cancelled and reported. Bound once by the composition root to the database, the clock,
 * the URL signer, the STT registry and the evaluation runner, so a route parses and calls.
 */
import type { Db } from '../../storage/db.js';
import type { Clock } from '../../clock.js';
import type { SttRegistry } from '../../engines/stt/registry.js';
import type {
  CreateEvaluationRequest,
  EvaluationCompare,
  EvaluationCreated,
  EvaluationDetail,
  EvaluationPage,
  EvaluationStatus,
  EvaluationUtterancePage,
  EvaluationUtteranceQuery,
} from '../../../shared/schemas/evaluations.js';
import { DomainError } from '../../../shared/errors.js';
import { requestBase, type UrlSigner } from '../audio/index.js';
import { refundCharacters } from '../limits/index.js';
import { createEvaluation } from './create.js';
import { rerunEvaluation } from './rerun.js';
import { compareEvaluations } from './compare.js';
import { configuredFrom, describeFrom, labelsFrom, streamingFrom } from './setup.js';
import { baselineComparison } from './report/baseline.js';
import { readCorpusForEvaluation } from './corpus-reader.js';
import { allUtterances, cancelEvaluationFor, EVALUATION_NOT_FOUND, evaluationOf, getEvaluation, listEvaluations, utterancePage } from './service.js';
import { evaluationLists, evaluationPrices, toEvaluationDetail, toEvaluationListItem, toEvaluationUtterance, type ViewContext } from './views.js';
import { renderEvaluationReport } from './report/html.js';
import { callFile, type CallFile } from './conversations/exports.js';
import { reportCalls } from './conversations/report-calls.js';

/** What the evaluation routes call. `links` are a response's signed URLs and provider labels (`links(request)`). */
export interface EvaluationsFeature {
  /** The signed URLs (audio, report) and provider labels of a response to `request`. */
  links(request: { protocol: string; host: string }): ViewContext;
  /** Parses and creates an evaluation of `userId`, then wakes the runner. */
  create(userId: string, body: CreateEvaluationRequest): Promise<EvaluationCreated>;
  /** Runs evaluation `id` again (DESIGN §11.2), then wakes the runner. */
  rerun(userId: string, id: string, name: string | undefined): Promise<EvaluationCreated>;
  compare(userId: string, id: string, baselineId: string): Promise<EvaluationCompare>;
  page(userId: string, q: { status?: EvaluationStatus; limit: number; offset: number }, links: ViewContext): Promise<EvaluationPage>;
  detail(userId: string, id: string, links: ViewContext): Promise<EvaluationDetail>;
  utterances(userId: string, id: string, query: EvaluationUtteranceQuery, links: ViewContext): Promise<EvaluationUtterancePage>;
  /** Cancels evaluation `id`; characters not yet synthesised are refunded. */
  cancel(userId: string, id: string, links: ViewContext): Promise<EvaluationDetail>;
  /** The HTML report behind a signed URL: existence first (404), then a valid (403), unexpired (410) signature. */
  report(id: string, signed: { expires?: string; sig?: string }, links: ViewContext): Promise<string>;
  /** A call's truth or a provider's hypothesis in a NIST format (DESIGN §16.2, §16.4). */
  callFile(userId: string, id: string, n: number, file: CallFile, query: { provider?: string; condition?: string }): Promise<string>;
}

/** Binds the evaluation rules to the service's collaborators (called once, by the composition root). */
export function createEvaluationsFeature(deps: {
  db: Db;
  clock: Clock;
  urls: UrlSigner;
  stt: SttRegistry;
  publicUrl: string | undefined;
  wake: () => void;
}): EvaluationsFeature {
  const { db, clock, urls, stt } = deps;
  const describe = describeFrom(stt);
  return {
    links(request) {
      const base = requestBase(deps.publicUrl, request);
      const now = clock.now();
      return {
        report: (evaluationId) => urls.report({ base, evaluationId, now }),
        audio: (audioId) => urls.audio({ base, audioId, now }),
        providerLabel: labelsFrom(stt),
      };
    },
    async create(userId, body) {
      const created = await createEvaluation(
        { db, now: clock.now(), describe, isConfigured: configuredFrom(stt), canStream: streamingFrom(stt), corpora: readCorpusForEvaluation },
        { userId, body },
      );
      deps.wake();
      return created;
    },
    async rerun(userId, id, name) {
      const created = await rerunEvaluation({ db, now: clock.now(), describe, corpora: readCorpusForEvaluation }, { id, userId, ...(name !== undefined ? { name } : {}) });
      deps.wake();
      return created;
    },
    compare: (userId, id, baselineId) => compareEvaluations(db, { id, baselineId, userId }),
    async page(userId, q, links) {
      const { rows, total } = await listEvaluations(db, { userId, ...q });
      return { items: rows.map((r) => toEvaluationListItem(r, links)), total, limit: q.limit, offset: q.offset, has_more: q.offset + rows.length < total };
    },
    detail: async (userId, id, links) => toEvaluationDetail(await evaluationOf(db, id, userId), links),
    async utterances(userId, id, query, links) {
      const row = await evaluationOf(db, id, userId);
      const limit = query.limit ?? 20;
      const offset = query.offset ?? 0;
      const { rows, total } = await utterancePage(db, row, query, { limit, offset });
      const lists = evaluationLists(row);
      return { items: rows.map((u) => toEvaluationUtterance(u, lists, links)), total, limit, offset, has_more: offset + rows.length < total };
    },
    cancel: async (userId, id, links) => toEvaluationDetail(await cancelEvaluationFor({ db, now: clock.now(), refund: refundCharacters }, { id, userId }), links),
    async report(id, signed, links) {
      const row = await getEvaluation(db, id);
      if (!row) throw new DomainError('evaluation_not_found', EVALUATION_NOT_FOUND);
      const now = clock.now();
      const check = urls.verifyReport({ evaluationId: row.id, expires: signed.expires, sig: signed.sig, now });
      if (check === 'tampered') throw new DomainError('invalid_signature', 'Invalid report URL signature');
      if (check === 'expired') throw new DomainError('url_expired', 'Report URL has expired');
      const lists = evaluationLists(row);
      const utterances = await allUtterances(db, row.id);
      return renderEvaluationReport({
        evaluation: toEvaluationDetail(row, links),
        utterances: utterances.map((u) => toEvaluationUtterance(u, lists, links)),
        generatedAt: now,
        baseline: await baselineComparison(db, row),
        prices: evaluationPrices(row),
        adapters: Object.fromEntries(stt.states().map((p) => [p.id, p.adapter])),
        calls: await reportCalls(db, row, utterances),
      });
    },
    callFile: async (userId, id, n, file, query) => callFile(db, await evaluationOf(db, id, userId), n, file, query),
  };
}
