import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';

/** Sends raw bytes over a real socket and reads until the server closes it: status, headers, JSON body. */
async function raw(server: TestServer, request: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: Record<string, unknown> }> {
  const { port, hostname } = new URL(server.url);
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
  });
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

const get = (extra: string) => `GET /health HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`;
const post = (extra: string) => `POST /v1/stt/calculate-accuracy HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${extra}\r\n`;

describe("errors of Node's HTTP parser, over a raw socket", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it.each([
    ['a non-numeric Content-Length', post('Content-Length: abc\r\n'), 400, 'Invalid Content-Length'],
    ['two different Content-Lengths', post('Content-Length: 5\r\nContent-Length: 6\r\n') + 'hello!', 400, 'Invalid Content-Length'],
    ['Content-Length with Transfer-Encoding', post('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n') + '0\r\n\r\n', 400, 'Invalid Transfer-Encoding'],
    ['a CR inside a header value', get('X-Note: a\rb\r\n'), 400, 'Invalid character in a header'],
    ['a NUL inside a header value', get('X-Note: a\u0000b\r\n'), 400, 'Invalid character in a header'],
    ['a bare LF splitting a header', get('X-Note: a\nb\r\n'), 400, 'Invalid character in a header'],
    ['a space in a header name', get('X Note: a\r\n'), 400, 'Invalid character in a header'],
    ['32 KB of headers', get(`X-Big: ${'a'.repeat(32 * 1024)}\r\n`), 431, 'Request headers are too large'],
    ['an invalid method', 'G@T /health HTTP/1.1\r\nHost: localhost\r\n\r\n', 400, 'Invalid HTTP method'],
    ['no Host header', 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n', 400, 'Missing Host header'],
  ])('answers %s in the error envelope with X-Request-Id and rate-limit headers', async (_name, request, status, detail) => {
    const res = await raw(server, request);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ detail: expect.any(String), status_code: status, request_id: res.headers['x-request-id'], code: status === 431 ? 'headers_too_large' : 'malformed_request' });
    expect(res.body.detail).toMatch(detail);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect([h, res.headers[h]]).toEqual([h, expect.stringMatching(/^\d+$/)]);
  });

  it('still serves HTTP/1.0 without Host, and everything afterwards', async () => {
    const old = await raw(server, 'GET /health HTTP/1.0\r\n\r\n');
    expect([old.status, old.body.status]).toEqual([200, 'ok']);
    expect((await call(server, 'GET', '/health')).status).toBe(200);
  });
});
