import { isErrorCode, type ErrorCode } from '../../shared/errors.js';

/** Exit codes of the CLI (DESIGN §7). */
export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  rateLimited: 5,
  jobFailed: 6,
  /** `eval run --max-wer`: a provider's overall WER exceeded the gate (DESIGN §8.7). */
  werGate: 7,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The stable snake_case code of each exit code, for `--json` errors when nothing more precise is known. */
const DEFAULT_CODES: Record<ExitCode, string> = {
  0: 'ok',
  1: 'error',
  2: 'usage_error',
  3: 'authentication_failed',
  4: 'not_found',
  5: 'rate_limited',
  6: 'job_failed',
  7: 'wer_gate_exceeded',
};

/** The one error type of the CLI: a message for the user, an exit code, a stable code and an optional hint. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  /** Stable snake_case code for scripts (`--json` errors). */
  readonly code: string;

  constructor(message: string, options: { exitCode?: ExitCode; hint?: string; cause?: unknown; code?: string } = {}) {
    super(message, { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? ExitCode.error;
    this.hint = options.hint;
    this.code = options.code ?? DEFAULT_CODES[this.exitCode];
  }
}

/** A usage error (exit 2): a missing or invalid argument or option. */
export const usageError = (message: string, hint?: string) => new CliError(message, { exitCode: ExitCode.usage, hint });

/**
 * The exit code of each error code the service answers (DESIGN §7): the one place the CLI turns the
 * service's `code` into an exit code, so no command reads message text to tell errors apart.
 */
export const EXIT_BY_ERROR_CODE: Readonly<Record<ErrorCode, ExitCode>> = Object.freeze({
  validation_failed: ExitCode.usage,
  text_too_long: ExitCode.usage,
  malformed_request: ExitCode.usage,
  unsupported_audio: ExitCode.usage,
  authentication_failed: ExitCode.auth,
  forbidden: ExitCode.auth,
  subscription_cancelled: ExitCode.auth,
  invalid_signature: ExitCode.auth,
  not_found: ExitCode.notFound,
  user_not_found: ExitCode.notFound,
  key_not_found: ExitCode.notFound,
  speaker_not_found: ExitCode.notFound,
  job_not_found: ExitCode.notFound,
  dataset_not_found: ExitCode.notFound,
  audio_not_found: ExitCode.notFound,
  evaluation_not_found: ExitCode.notFound,
  corpus_not_found: ExitCode.notFound,
  invoice_not_found: ExitCode.notFound,
  request_timeout: ExitCode.error,
  already_exists: ExitCode.error,
  conflict: ExitCode.error,
  url_expired: ExitCode.error,
  audio_expired: ExitCode.error,
  payload_too_large: ExitCode.error,
  uri_too_long: ExitCode.error,
  range_not_satisfiable: ExitCode.error,
  unsupported_media_type: ExitCode.error,
  idempotency_conflict: ExitCode.error,
  quota_exceeded: ExitCode.rateLimited,
  rate_limited: ExitCode.rateLimited,
  headers_too_large: ExitCode.error,
  internal_error: ExitCode.error,
  synthesis_failed: ExitCode.error,
  service_unavailable: ExitCode.error,
});

/**
 * The code of a service error: the body's own `code`, or — from something that is not a voxctl service
 * (a proxy's error page) — the nearest code of its status.
 */
export function serviceErrorCode(e: { status: number; code?: string | undefined }): string {
  if (e.code !== undefined) return e.code;
  if (e.status === 400) return 'validation_failed';
  if (e.status === 401) return 'authentication_failed';
  if (e.status === 403) return 'forbidden';
  if (e.status === 404) return 'not_found';
  if (e.status === 413) return 'payload_too_large';
  if (e.status === 422) return 'idempotency_conflict';
  if (e.status === 429) return 'rate_limited';
  if (e.status === 503) return 'service_unavailable';
  return e.status >= 500 ? 'server_error' : 'http_error';
}

/** The exit code of a service error; a code this CLI does not know yet (a newer service) goes by its status. */
export function exitCodeOfService(e: { status: number; code?: string | undefined }): ExitCode {
  const code = serviceErrorCode(e);
  const known = isErrorCode(code) ? code : serviceErrorCode({ status: e.status });
  return isErrorCode(known) ? EXIT_BY_ERROR_CODE[known] : ExitCode.error;
}
