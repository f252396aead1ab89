import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { DomainError, type ErrorCode, type FieldError } from '../../shared/errors.js';
import { multipartFault } from './multipart-errors.js';

interface AjvIssue {
  instancePath?: string;
  schemaPath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * Ajv reports a value outside a union of literals (TypeBox enums such as scope or status) as one `const`
 * issue per member plus the `anyOf`; say it once, with the allowed values.
 */
function collapseLiteralUnions(issues: AjvIssue[]): AjvIssue[] {
  const out: AjvIssue[] = [];
  for (const issue of issues) {
    const prefix = `${issue.schemaPath ?? ''}/`;
    const members = out.filter((i) => i.keyword === 'const' && i.instancePath === issue.instancePath && i.schemaPath?.startsWith(prefix));
    if (issue.keyword === 'anyOf' && members.length > 0) {
      const allowed = members.map((m) => JSON.stringify(m.params?.allowedValue)).join(', ');
      const rest = out.filter((i) => !members.includes(i));
      out.length = 0;
      out.push(...rest, { instancePath: issue.instancePath, keyword: 'enum', message: `must be one of: ${allowed}` });
      continue;
    }
    out.push(issue);
  }
  return out;
}

/** Turns Ajv issues into the `errors` list of a 400 (`loc` like FastAPI: [part, ...path]). */
function fieldErrors(part: string, issues: AjvIssue[]): FieldError[] {
  return collapseLiteralUnions(issues).map((issue) => {
    const path = (issue.instancePath ?? '')
      .split('/')
      .filter(Boolean)
      .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg));
    const missing = issue.params?.missingProperty;
    if (typeof missing === 'string') path.push(missing);
    return { loc: [part, ...path], msg: issue.message ?? 'is invalid', type: issue.keyword ?? 'invalid' };
  });
}

/**
 * The HTTP status of every error code: the one place the domain meets HTTP. A service throws
 * `DomainError('speaker_not_found', ...)`; this table makes it a 404.
 */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze({
  validation_failed: 400,
  text_too_long: 400,
  malformed_request: 400,
  unsupported_audio: 400,
  authentication_failed: 401,
  forbidden: 403,
  subscription_cancelled: 403,
  invalid_signature: 403,
  not_found: 404,
  user_not_found: 404,
  key_not_found: 404,
  speaker_not_found: 404,
  job_not_found: 404,
  dataset_not_found: 404,
  audio_not_found: 404,
  evaluation_not_found: 404,
  corpus_not_found: 404,
  invoice_not_found: 404,
  request_timeout: 408,
  already_exists: 409,
  conflict: 409,
  url_expired: 410,
  audio_expired: 410,
  payload_too_large: 413,
  uri_too_long: 414,
  range_not_satisfiable: 416,
  unsupported_media_type: 415,
  idempotency_conflict: 422,
  quota_exceeded: 429,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  synthesis_failed: 500,
  service_unavailable: 503,
});

/** The HTTP status of an error code. */
export const statusOf = (code: ErrorCode): number => STATUS_BY_CODE[code];

/** The envelope of every error response (DESIGN §4.2 plus the machine `code`). */
export function errorBody(e: { code: ErrorCode; status: number; detail: string; requestId: string; errors?: FieldError[] | undefined }) {
  const base = { detail: e.detail, status_code: e.status, request_id: e.requestId, code: e.code };
  return e.errors ? { ...base, errors: e.errors } : base;
}

interface ErrorResponse {
  status: number;
  headers?: Record<string, string> | undefined;
  body: ReturnType<typeof errorBody>;
}

function respond(code: ErrorCode, detail: string, requestId: string, extra: { errors?: FieldError[] | undefined; status?: number } = {}): ErrorResponse {
  const status = extra.status ?? statusOf(code);
  return { status, body: errorBody({ code, status, detail, requestId, errors: extra.errors }) };
}

// Fastify's own 4xx errors outside the cases below keep their status; their code is the first with it.
const codeForStatus = (status: number): ErrorCode =>
  (Object.keys(STATUS_BY_CODE) as ErrorCode[]).find((c) => STATUS_BY_CODE[c] === status) ?? 'malformed_request';

/** Maps any thrown error to `{detail, status_code, request_id, code[, errors]}` (DESIGN §4.2); the one place that does. */
export function toErrorResponse(error: unknown, requestId: string, opts: { multipart?: boolean } = {}): ErrorResponse {
  if (error instanceof DomainError) {
    const res = respond(error.code, error.message, requestId, { errors: error.errors });
    return error instanceof ApiError ? { ...res, headers: error.headers } : res;
  }
  const err = error as FastifyError & { validationContext?: string };
  if (err.validation) {
    const part = err.validationContext ?? 'body';
    const errors = fieldErrors(part, err.validation as AjvIssue[]);
    const first = errors[0];
    const detail = first ? `Invalid ${first.loc.join('.')}: ${first.msg}` : 'Invalid request';
    return respond('validation_failed', detail, requestId, { errors });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return respond('payload_too_large', 'Request body exceeds the maximum size', requestId);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return respond('unsupported_media_type', 'Unsupported Content-Type', requestId);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return respond('malformed_request', 'Malformed JSON body', requestId);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return respond('malformed_request', 'Invalid Content-Length', requestId);
    // Raised by the router before any hook runs (see `frameworkErrors` in app.ts).
    case 'FST_ERR_BAD_URL':
      return respond('malformed_request', 'Malformed URL', requestId);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return respond('uri_too_long', 'Path parameter too long', requestId);
  }
  const multipart = multipartFault(error, opts);
  if (multipart) return respond(multipart.code, multipart.detail, requestId);
  if (err instanceof SyntaxError || err.statusCode === 400) return respond('malformed_request', 'Malformed JSON body', requestId);
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    // A 4xx from Fastify itself carries a safe message.
    return respond(codeForStatus(err.statusCode), err.message, requestId, { status: err.statusCode });
  }
  // Never echo internals (SQL, stack, paths) for a 5xx.
  return respond('internal_error', 'Internal server error', requestId);
}

/**
 * Answers an error the router raised before any hook ran (Fastify's `frameworkErrors`): same envelope,
 * plus the headers the hooks would have set (`X-Request-Id`, rate limits).
 */
export function sendFrameworkError(error: unknown, request: FastifyRequest, reply: FastifyReply, headers: Record<string, string>): void {
  const res = toErrorResponse(error, request.id);
  void reply
    .code(res.status)
    .headers({ 'X-Request-Id': request.id, ...headers })
    .type('application/json; charset=utf-8')
    .send(res.body);
}

/** Installs the single error handler and the 404 handler. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // A lost database is the operator's outage, not this request's bug: 503 with Retry-After, logged once
    // per outage by the availability tracker instead of once per request (DESIGN §14.3).
    const unavailable = app.runtime.database.report(error);
    const res = unavailable
      ? toErrorResponse(new ApiError('service_unavailable', 'Service temporarily unavailable', { headers: { 'Retry-After': '5' } }), request.id)
      : toErrorResponse(error, request.id, { multipart: request.isMultipart?.() === true });
    if (res.status >= 500 && !unavailable) request.log.error({ err: error }, 'request failed');
    if (res.headers) reply.headers(res.headers);
    return reply.code(res.status).type('application/json; charset=utf-8').send(res.body);
  });
  app.setNotFoundHandler(async (request, reply) => {
    return reply
      .code(404)
      .send(errorBody({ code: 'not_found', status: 404, detail: `Not found: ${request.method} ${request.url.split('?')[0]}`, requestId: request.id }));
  });
}
