import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type FieldError } from '../errors.js';
import { multipartFault } from './multipart-errors.js';
import { TextRuleError } from '../../shared/text-rules.js';

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

/** Maps any thrown error to `{detail, status_code, request_id[, errors]}` (DESIGN §4.2); the one place that does. */
export function toErrorResponse(error: unknown, requestId: string) {
  if (error instanceof ApiError) {
    return { status: error.status, headers: error.headers, body: body(error.status, error.detail, requestId, error.errors) };
  }
  // The shared text rules throw a domain error (the CLI maps the same one to a usage error).
  if (error instanceof TextRuleError) return { status: 400, body: body(400, error.message, requestId) };
  const err = error as FastifyError & { validationContext?: string };
  if (err.validation) {
    const part = err.validationContext ?? 'body';
    const errors = fieldErrors(part, err.validation as AjvIssue[]);
    const first = errors[0];
    const detail = first ? `Invalid ${first.loc.join('.')}: ${first.msg}` : 'Invalid request';
    return { status: 400, body: body(400, detail, requestId, errors) };
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: body(413, 'Request body exceeds the maximum size', requestId) };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: body(415, 'Unsupported Content-Type', requestId) };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, body: body(400, 'Malformed JSON body', requestId) };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, body: body(400, 'Invalid Content-Length', requestId) };
    // Raised by the router before any hook runs (see `frameworkErrors` in app.ts).
    case 'FST_ERR_BAD_URL':
      return { status: 400, body: body(400, 'Malformed URL', requestId) };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, body: body(414, 'Path parameter too long', requestId) };
  }
  const multipart = multipartFault(error);
  if (multipart) return { status: multipart.status, body: body(multipart.status, multipart.detail, requestId) };
  if (err instanceof SyntaxError || err.statusCode === 400) {
    return { status: 400, body: body(400, 'Malformed JSON body', requestId) };
  }
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  // Never echo internals (SQL, stack, paths) for a 5xx; a 4xx from Fastify itself carries a safe message.
  const detail = status === 500 ? 'Internal server error' : err.message;
  return { status, body: body(status, detail, requestId) };
}

function body(status: number, detail: string, requestId: string, errors?: FieldError[]) {
  return errors ? { detail, status_code: status, request_id: requestId, errors } : { detail, status_code: status, request_id: requestId };
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
    const res = toErrorResponse(error, request.id);
    if (res.status >= 500) request.log.error({ err: error }, 'request failed');
    if (res.headers) reply.headers(res.headers);
    return reply.code(res.status).type('application/json; charset=utf-8').send(res.body);
  });
  app.setNotFoundHandler(async (request, reply) => {
    return reply
      .code(404)
      .send({ detail: `Not found: ${request.method} ${request.url.split('?')[0]}`, status_code: 404, request_id: request.id });
  });
}
