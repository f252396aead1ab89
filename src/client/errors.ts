export { ERROR_CODES, isErrorCode, type ErrorCode } from '../shared/errors.js';

/** An HTTP error answer of the service: its status, `detail`, request id and rate-limit hints. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly requestId: string | undefined;
  /** Seconds to wait (the `Retry-After` header of a 429), when given. */
  readonly retryAfter: number | undefined;
  /** Unix epoch seconds when the binding rate-limit window resets (`X-RateLimit-Reset`), when given. */
  readonly rateLimitReset: number | undefined;
  /** Field-level validation problems of a 400, when the server listed them. */
  readonly errors: { loc: (string | number)[]; msg: string; type: string }[] | undefined;
  /**
   * The service's stable machine code (`speaker_not_found`, `quota_exceeded`, ... — `ERROR_CODES`), when
   * its body carries one; scripts rely on it rather than on `detail`. A newer service may add codes.
   */
  readonly code: string | undefined;

  constructor(init: {
    status: number;
    detail: string;
    code?: string;
    requestId?: string;
    retryAfter?: number;
    rateLimitReset?: number;
    errors?: { loc: (string | number)[]; msg: string; type: string }[];
  }) {
    super(init.detail);
    this.name = 'ApiRequestError';
    this.status = init.status;
    this.detail = init.detail;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.rateLimitReset = init.rateLimitReset;
    this.errors = init.errors;
    this.code = init.code;
  }
}

/** The service could not be reached at all (refused, DNS, timeout, reset): names the target. */
export class NetworkError extends Error {
  /** The base URL (or full URL) that could not be reached. */
  readonly target: string;

  constructor(target: string, cause: unknown) {
    const reason = describeCause(cause);
    super(`Cannot reach ${target}: ${reason}`, { cause });
    this.name = 'NetworkError';
    this.target = target;
  }
}

// undici wraps the socket error: the useful code (ECONNREFUSED, ENOTFOUND...) sits on `cause`.
function describeCause(cause: unknown): string {
  let current: unknown = cause;
  for (let depth = 0; depth < 4 && current; depth++) {
    const c = current as { code?: string; message?: string; cause?: unknown };
    if (typeof c.code === 'string' && c.code !== 'UND_ERR_SOCKET') return c.message ? `${c.code} (${c.message})` : c.code;
    if (!c.cause) return c.message ?? String(current);
    current = c.cause;
  }
  return String(cause);
}
