// DomainError, validationFailed and their types have one home, src/shared/errors.ts: import them from there.
import { DomainError, type ErrorCode } from '../shared/errors.js';

/**
 * An error raised by the HTTP layer itself (plugins), which may need response headers (`Retry-After` of a
 * 429). Its status, like every error's, comes from its code (`plugins/errors.ts`).
 */
export class ApiError extends DomainError {
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, detail: string, options: { headers?: Record<string, string>; cause?: unknown } = {}) {
    super(code, detail, { cause: options.cause });
    this.name = 'ApiError';
    this.headers = options.headers;
  }
}

/** `authentication_failed` with the spec's message. */
export const unauthorized = () => new DomainError('authentication_failed', 'Invalid or expired API key');
/** `forbidden` with the given detail. */
export const forbidden = (detail = 'Insufficient permissions') => new DomainError('forbidden', detail);

