/**
 * The stable machine codes of every error the service answers (the `code` of an error body). Scripts and
 * the client rely on them instead of message text, so a code, once shipped, never changes meaning; the
 * server maps each to one HTTP status (`plugins/errors.ts`) and the CLI to one exit code (`cli/errors.ts`).
 */
export const ERROR_CODES = Object.freeze([
  'validation_failed',
  'text_too_long',
  'malformed_request',
  'unsupported_audio',
  'authentication_failed',
  'forbidden',
  'subscription_cancelled',
  'invalid_signature',
  'not_found',
  'user_not_found',
  'key_not_found',
  'speaker_not_found',
  'job_not_found',
  'dataset_not_found',
  'audio_not_found',
  'evaluation_not_found',
  'corpus_not_found',
  'invoice_not_found',
  'request_timeout',
  'already_exists',
  'conflict',
  'url_expired',
  'audio_expired',
  'payload_too_large',
  'uri_too_long',
  'range_not_satisfiable',
  'unsupported_media_type',
  'idempotency_conflict',
  'quota_exceeded',
  'rate_limited',
  'headers_too_large',
  'internal_error',
  'synthesis_failed',
  'service_unavailable',
] as const);
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Whether `value` is one of the codes above (the client may meet codes of a newer server). */
export const isErrorCode = (value: unknown): value is ErrorCode => (ERROR_CODES as readonly unknown[]).includes(value);

/** A validation problem attached to a `validation_failed` error (DESIGN §4.2). */
export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * The one error type of the domain: what went wrong as a stable `code`, the message a person reads and
 * the `cause`. Services throw it and know nothing of HTTP; the transport decides status or exit code.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  /** Field-level problems of a `validation_failed`, when known. */
  readonly errors: FieldError[] | undefined;

  constructor(code: ErrorCode, message: string, options: { errors?: FieldError[]; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'DomainError';
    this.code = code;
    this.errors = options.errors;
  }
}

/** A `validation_failed` error: the input breaks a rule, nothing was changed. */
export const validationFailed = (message: string, errors?: FieldError[]) => new DomainError('validation_failed', message, { errors });
