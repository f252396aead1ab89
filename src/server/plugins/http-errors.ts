import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { DomainError, type ErrorCode } from '../../shared/errors.js';
import { errorBody, statusOf } from './errors.js';

/**
 * Requests Node's HTTP parser refuses never become requests: no route, no hook, only the socket. They are
 * answered here in the error envelope of DESIGN §4.2 with `X-Request-Id` and the caller's rate-limit
 * headers (peeked, not counted), like every other response — as far as a raw socket allows.
 */
const PARSER_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'Request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'Request timed out'],
  HPE_INVALID_CONTENT_LENGTH: ['malformed_request', 'Invalid Content-Length'],
  HPE_UNEXPECTED_CONTENT_LENGTH: ['malformed_request', 'Invalid Content-Length'],
  HPE_INVALID_TRANSFER_ENCODING: ['malformed_request', 'Invalid Transfer-Encoding'],
  HPE_INVALID_HEADER_TOKEN: ['malformed_request', 'Invalid character in a header'],
  HPE_CR_EXPECTED: ['malformed_request', 'Invalid character in a header'],
  HPE_LF_EXPECTED: ['malformed_request', 'Invalid character in a header'],
  HPE_INVALID_METHOD: ['malformed_request', 'Invalid HTTP method'],
  HPE_INVALID_URL: ['malformed_request', 'Malformed URL'],
  HPE_INVALID_VERSION: ['malformed_request', 'Unsupported HTTP version'],
};

/** The raw HTTP/1.1 response to a request the parser refused (`Connection: close`: the stream is unusable). */
export function clientErrorResponse(parserCode: string | undefined, opts: { requestId: string; headers: Record<string, string> }): string {
  const [code, detail] = PARSER_ERRORS[parserCode ?? ''] ?? ['malformed_request', 'Malformed HTTP request'];
  const status = statusOf(code);
  const body = JSON.stringify(errorBody({ code, status, detail, requestId: opts.requestId }));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': opts.requestId,
    ...opts.headers,
    Connection: 'close',
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Fastify's `clientErrorHandler`: answers parser errors in the envelope, then closes the socket. */
export function createClientErrorHandler(opts: { requestId: () => string; headersFor: (ip: string) => Record<string, string> }) {
  return (err: Error & { code?: string }, socket: Socket): void => {
    // A reset connection has nobody to answer; a response already under way must not be interleaved.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable && !inFlight?.headersSent) {
      socket.write(clientErrorResponse(err.code, { requestId: opts.requestId(), headers: opts.headersFor(socket.remoteAddress ?? '') }));
    }
    socket.destroy(err);
  };
}

/**
 * An HTTP/1.1 request must name its Host (RFC 9112 §3.2). Node's own check answers a bare 400 with no
 * body or headers, so the server turns it off (`requireHostHeader: false`) and answers here instead.
 */
export function registerHostCheck(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') return done(new DomainError('malformed_request', 'Missing Host header'));
    done();
  });
}
