/** Why a synthesis failed, so callers can tell a bad binding from a broken engine or a dead worker. */
export type TtsErrorCode =
  /** The binding names a voice or variant the engine does not have. */
  | 'invalid_voice'
  /** The engine ran and failed (non-zero exit, missing output, load failure). */
  | 'engine_error'
  /** The worker running the task died twice (the task was retried once on a fresh worker). */
  | 'worker_crashed'
  /** The task hung twice (its worker was terminated and replaced each time). */
  | 'timeout'
  /** The pool was closed before the task finished. */
  | 'pool_closed';

/** The one error type of the TTS engines and pool; `code` survives the trip from a worker thread. */
export class TtsError extends Error {
  readonly code: TtsErrorCode;

  constructor(code: TtsErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'TtsError';
    this.code = code;
  }
}

/** What a worker posts for a failed task (Error objects lose their class across postMessage). */
export interface SerializedTtsError {
  code: TtsErrorCode;
  message: string;
}

/** Flattens any thrown value for postMessage. */
export function serializeTtsError(err: unknown): SerializedTtsError {
  if (err instanceof TtsError) return { code: err.code, message: err.message };
  return { code: 'engine_error', message: err instanceof Error ? err.message : String(err) };
}
