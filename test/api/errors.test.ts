import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { buildApp } from '../../src/server/app.js';
import { createRuntime } from '../../src/server/runtime.js';
import { loggerOptions } from '../../src/server/logger.js';

describe('error envelope', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('carries detail, status_code and the request id of the X-Request-Id header', async () => {
    for (const [method, path, opts, status] of [
      ['GET', '/v1/users/me', {}, 401],
      ['GET', '/v1/keys?limit=101', { key: TEST_KEY }, 400],
      ['DELETE', '/v1/keys/key_x', { key: TEST_KEY }, 404],
      ['GET', '/v2/anything', {}, 404],
    ] as const) {
      const res = await call(server, method, path, opts);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.status_code).toBe(status);
      expect(typeof res.body.detail).toBe('string');
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    }
  });

  it('adds a FastAPI-style errors list to validation failures', async () => {
    const res = await call(server, 'POST', '/v1/keys', { key: TEST_KEY, json: { scope: 'root' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Invalid body.scope: must be one of: "full", "read"');
    expect(res.body.errors).toEqual([{ loc: ['body', 'scope'], msg: 'must be one of: "full", "read"', type: 'enum' }]);
  });

  it('answers 413 for a JSON body over 1 MB, and the server keeps serving', async () => {
    const res = await call(server, 'POST', '/v1/keys', {
      key: TEST_KEY,
      body: `{"name":"${'a'.repeat(1024 * 1024)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status_code: 413, detail: expect.any(String) });
    expect((await call(server, 'GET', '/health')).status).toBe(200);
  });

  it('gives every error body a stable machine code beside detail, status_code and request_id (issue 10)', async () => {
    for (const [method, path, opts, status, code] of [
      ['GET', '/v1/users/me', {}, 401, 'authentication_failed'],
      ['GET', '/v1/keys?limit=101', { key: TEST_KEY }, 400, 'validation_failed'],
      ['DELETE', '/v1/keys/key_x', { key: TEST_KEY }, 404, 'key_not_found'],
      ['GET', '/v1/speakers/spk_nope', { key: TEST_KEY }, 404, 'speaker_not_found'],
      ['GET', '/v1/jobs/job_nope', { key: TEST_KEY }, 404, 'job_not_found'],
      ['GET', '/v2/anything', {}, 404, 'not_found'],
      ['POST', '/v1/keys', { key: TEST_KEY, body: '{"name":', headers: { 'content-type': 'application/json' } }, 400, 'malformed_request'],
      ['POST', '/v1/keys', { key: TEST_KEY, body: `{"name":"${'a'.repeat(1024 * 1024)}"}`, headers: { 'content-type': 'application/json' } }, 413, 'payload_too_large'],
    ] as const) {
      const res = await call(server, method, path, opts);
      expect([path, res.status, res.body.code]).toEqual([path, status, code]);
      expect(res.body).toMatchObject({ status_code: status, request_id: res.headers.get('x-request-id'), detail: expect.any(String) });
    }
  });

  it('gives each response its own request id', async () => {
    const ids = new Set<string | null>();
    for (let i = 0; i < 5; i++) ids.add((await call(server, 'GET', '/health')).headers.get('x-request-id'));
    expect(ids.size).toBe(5);
  });
});

describe('logs', () => {
  it('never contain the API key, even at trace level with headers serialised', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-logs-'));
    let out = '';
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const runtime = await createRuntime({ dataDir, host: '127.0.0.1', port: 0, allowPrivateAudioUrls: false, bootstrapKey: TEST_KEY, logLevel: 'trace' });
    // Headers are serialised on purpose: the redaction of loggerOptions must hide them, not the serializer.
    const app = await buildApp(runtime, {
      logger: {
        ...loggerOptions('trace'),
        stream,
        serializers: { req: (req: { method: string; url: string; headers: unknown }) => ({ method: req.method, url: req.url, headers: req.headers }) },
      },
    });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const created = await call({ url }, 'POST', '/v1/keys', { key: TEST_KEY, json: { name: 'logged?' } });
      expect(created.status).toBe(201);
      await call({ url }, 'GET', '/v1/users/me', { key: created.body.key });
      await call({ url }, 'GET', '/v1/users/me', { key: `vox_${'Z'.repeat(40)}` });
      await call({ url }, 'GET', '/health', { headers: { 'x-api-key': TEST_KEY } });
      await app.close();
      expect(out).toContain('"route":"/v1/users/me"');
      for (const secret of [TEST_KEY, created.body.key as string, `vox_${'Z'.repeat(40)}`]) {
        expect(out).not.toContain(secret);
        expect(out).not.toContain(secret.slice(8));
      }
    } finally {
      await app.close();
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
