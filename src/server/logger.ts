import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';

/** The logger as Fastify types it, so the one instance serves requests and the runners alike. */
export type Logger = FastifyBaseLogger;

/** Who made a request: the ids its log lines carry (DESIGN §14.5), never the key. */
export interface Caller {
  user_id: string;
  key_id: string;
}

const CALLER = Symbol('voxctl.caller');

/**
 * Makes every line of `log` (a request's own logger) and of its children say who asked. The ids are kept
 * on the logger and added by the mixin when a line is written, where pino's `setBindings` would serialise
 * them (through the redaction) on every authenticated request, whether a line is written or not.
 */
export function bindCaller(log: Logger, caller: Caller): void {
  (log as unknown as Record<symbol, Caller | undefined>)[CALLER] = caller;
}

/** The caller fields of a line; pino mutates what a mixin returns, so it is a new object each time. */
function callerFields(_line: object, _level: number, logger: object): object {
  // A child logger inherits the property through its prototype: a request's child lines say who asked too.
  const caller = (logger as Record<symbol, Caller | undefined>)[CALLER];
  return caller ? { user_id: caller.user_id, key_id: caller.key_id } : {};
}

/** Pino options: never log the Authorization header or API keys (DESIGN §4.2, guide: no secret logged). */
export const loggerOptions = (level: string) => ({
  level,
  redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'key', '*.key'], censor: '[redacted]' },
  mixin: callerFields,
});

/**
 * The server's one logger (requests, job runners), at `level` (`silent` logs nothing). Request lines log
 * the URL with a signed URL's `sig` redacted: the serializer is set here once, for every child to
 * inherit — set per request child, it cost each request a rebuild of pino's serializers.
 */
export function createLogger(level: string): Logger {
  return pino({ ...loggerOptions(level), serializers: { req: serializeRequest } });
}

/** A URL as logged: the `sig` of a signed URL (valid 24 h, a bearer credential) becomes `[redacted]` (DESIGN §14.5). */
export function redactSignature(url: string): string {
  return url.replace(/([?&]sig=)[^&#]*/gi, '$1[redacted]');
}

/** The request as request lines log it: Fastify's usual fields, the URL with its signature redacted. */
export function serializeRequest(req: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
  return { method: req.method, url: redactSignature(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}
