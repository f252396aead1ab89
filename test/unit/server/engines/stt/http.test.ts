import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scrub, vendorJson, vendorMessage } from '../../../../../src/server/engines/stt/http.js';
import { SttError } from '../../../../../src/server/engines/stt/types.js';

let server: Server;
let base: string;
const replies: Record<string, [number, string]> = {
  '/bad-format': [400, JSON.stringify({ error: { message: 'Invalid file format. Supported formats: flac, mp3, wav' } })],
  '/bad-param': [400, JSON.stringify({ error: { message: "Unknown parameter 'foo'" } })],
  '/corrupt': [400, JSON.stringify({ err_code: 'Bad Request', err_msg: 'Bad Request: failed to process audio: corrupt or unsupported data' })],
  '/echo-key': [403, JSON.stringify({ message: 'key sk-live-123 is not allowed' })],
  '/gateway': [504, 'upstream timed out'],
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const [status, body] = replies[req.url ?? ''] ?? [404, ''];
    res.writeHead(status).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const ctx = { vendor: 'Acme', secrets: ['sk-live-123'] };
const codeOf = async (path: string) => {
  const err = await vendorJson(ctx, base + path, { signal: AbortSignal.timeout(2000) }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SttError);
  return err as SttError;
};

describe('vendor HTTP error mapping', () => {
  test('a 400 about the audio → unsupported_audio; about the request → upstream_error', async () => {
    expect((await codeOf('/bad-format')).code).toBe('unsupported_audio');
    expect((await codeOf('/corrupt')).code).toBe('unsupported_audio');
    expect((await codeOf('/bad-param')).code).toBe('upstream_error');
  });

  test('a key echoed by the vendor is scrubbed from the message', async () => {
    const err = await codeOf('/echo-key');
    expect(err.code).toBe('upstream_error');
    expect(err.message).toBe('Acme rejected the credentials (HTTP 403): key [redacted] is not allowed');
  });

  test('a gateway timeout → timeout', async () => {
    expect((await codeOf('/gateway')).code).toBe('timeout');
  });

  test('vendorMessage knows the vendors’ error shapes', () => {
    expect(vendorMessage('{"detail":{"status":"x","message":"Invalid API key"}}')).toBe('Invalid API key');
    expect(vendorMessage('{"err_msg":"Invalid credentials."}')).toBe('Invalid credentials.');
    expect(vendorMessage('{"title":"Authorization has been denied"}')).toBe('Authorization has been denied');
    expect(vendorMessage('plain text')).toBe('plain text');
    expect(vendorMessage('')).toBeUndefined();
    expect(scrub({ vendor: 'A', secrets: ['k'] }, 'x'.repeat(400))).toHaveLength(303);
  });
});
