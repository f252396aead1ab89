import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { redactSignature } from '../shared/redact-signature.js';

/** The logger as Fastify types it, so the one instance serves requests and the runners alike. */
export type Logger = FastifyBaseLogger;

/** Who made a request: the ids its log lines carry (DESIGN §14.5), never the key. */
export interface Caller {
  user_id: string;
  key_id: string;
}

const CALLER = Symbol('voxctl.caller');
const REQUEST_ID = Symbol('voxctl.request-id');

/** What the mixin reads off a logger (own or inherited through children). */
type Tagged = Record<symbol, Caller | string | undefined>;

/**
 * Makes every line of `log` (a request's own logger) and of its children say who asked. The ids are kept
 * on the logger and added by the mixin when a line is written, where pino's `setBindings` would serialise
 * them (through the redaction) on every authenticated request, whether a line is written or not.
 */
export function bindCaller(log: Logger, caller: Caller): void {
  (log as unknown as Tagged)[CALLER] = caller;
}

/**
 * Fastify's logger for one request, made without a pino child: an object whose prototype is the server's
 * logger, carrying the request id for the mixin as `bindCaller` carries the caller. A pino child (options,
 * level methods, serialised bindings) cost every request about a microsecond whether a line was written or
 * not. Lines read as a child's did — `reqId` right after pino's own fields — and children of this logger
 * are ordinary pino children that inherit both. A route with its own log level gets a real child.
 */
export function requestLoggerFactory(logger: Logger, bindings: pino.Bindings, opts: pino.ChildLoggerOptions): Logger {
  if (Object.keys(opts).length > 0) return logger.child(bindings, opts);
  const log = Object.create(logger) as Logger;
  (log as unknown as Tagged)[REQUEST_ID] = bindings.reqId as string;
  return log;
}

/** The request's fields of a line; pino mutates what a mixin returns, so it is a new object each time. */
function requestFields(_line: object, _level: number, logger: object): object {
  // Children inherit the properties through their prototypes: a request's child lines carry them too.
  const reqId = (logger as Tagged)[REQUEST_ID] as string | undefined;
  const caller = (logger as Tagged)[CALLER] as Caller | undefined;
  if (caller === undefined) return reqId === undefined ? {} : { reqId };
  return reqId === undefined ? { user_id: caller.user_id, key_id: caller.key_id } : { reqId, user_id: caller.user_id, key_id: caller.key_id };
}

/** Pino options: never log the Authorization header or API keys (DESIGN §4.2, guide: no secret logged). */
export const loggerOptions = (level: string) => ({
  level,
  redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'key', '*.key'], censor: '[redacted]' },
  mixin: requestFields,
});

/**
 * The server's one logger (requests, job runners), at `level` (`silent` logs nothing). Request lines log
 * the URL with a signed URL's `sig` redacted: the serializer is set here once, for every child to
 * inherit — set per request child, it cost each request a rebuild of pino's serializers.
 */
export function createLogger(level: string): Logger {
  return pino({ ...loggerOptions(level), serializers: { req: serializeRequest } });
}

/** The request as request lines log it: Fastify's usual fields, the URL with its signature redacted. */
export function serializeRequest(req: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
  return { method: req.method, url: redactSignature(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}
