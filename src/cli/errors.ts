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
