/**
 * busboy (under @fastify/multipart) reports a malformed body with plain `Error`s — no code, no status —
 * thrown when the parts are iterated or emitted by a part's stream, so they would otherwise reach the
 * error handler as 500s. Their messages are the only signal; each is mapped to the client's fault here.
 */
import type { ErrorCode } from '../../shared/errors.js';

const FAULTS: [RegExp, { code: ErrorCode; detail: string }][] = [
  [/^Multipart: Boundary not found$|^Boundary required$|^The needle cannot/, { code: 'malformed_request', detail: 'Invalid multipart/form-data: the Content-Type header has no usable boundary' }],
  [/terminated early due to unexpected end of multipart data$|^Unexpected end of multipart data$/, { code: 'malformed_request', detail: 'Invalid multipart/form-data: the body ends in the middle of a part' }],
  [/^Unsupported Content-Type\.$|^Missing Content-Type-header\.$/, { code: 'unsupported_media_type', detail: 'Unsupported Content-Type' }],
];

const TRUNCATED = FAULTS[1]![1];

/**
 * The code and detail of a multipart parse error raised by busboy, or undefined for any other error.
 * On a multipart request a stream closed early is the same fault as busboy's "unexpected end": which of
 * the two a cut-off body raises depends on whether the body had fully arrived before parsing began
 * (after an authentication lookup on a remote database it has).
 */
export function multipartFault(error: unknown, opts: { multipart?: boolean } = {}): { code: ErrorCode; detail: string } | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (opts.multipart && code === 'ERR_STREAM_PREMATURE_CLOSE') return TRUNCATED;
  if (code !== undefined) return undefined;
  return FAULTS.find(([pattern]) => pattern.test(error.message))?.[1];
}
