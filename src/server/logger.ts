import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';

/** The logger as Fastify types it, so the one instance serves requests and the runners alike. */
export type Logger = FastifyBaseLogger;

/** Pino options: never log the Authorization header or API keys (DESIGN §4.2, guide: no secret logged). */
export const loggerOptions = (level: string) => ({
  level,
  redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'key', '*.key'], censor: '[redacted]' },
});

/** The server's one logger (requests, job runners), at `level` (`silent` logs nothing). */
export function createLogger(level: string): Logger {
  return pino(loggerOptions(level));
}
