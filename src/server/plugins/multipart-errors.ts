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

/** The code and detail of a multipart parse error raised by busboy, or undefined for any other error. */
export function multipartFault(error: unknown): { code: ErrorCode; detail: string } | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== undefined) return undefined;
  return FAULTS.find(([pattern]) => pattern.test(error.message))?.[1];
}
