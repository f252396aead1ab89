import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';

/** The logger as Fastify types it, so the one instance serves requests and the runners alike. */
export type Logger = FastifyBaseLogger;

/** Pino options: never log the Authorization header or API keys (DESIGN §4.2, guide: no secret logged). */
export const loggerOptions = (level: string) => ({
  level,
  redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'key', '*.key'], censor: '[redacted]' },
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
