import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { VERSION } from '../../src/shared/version.js';

describe('GET /health', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('is public and reports the version, uptime and checks', async () => {
    const res = await call(server, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      version: VERSION,
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      uptime_seconds: expect.any(Number),
      instance_id: expect.stringMatching(/^inst_[0-9a-f]{16}$/),
      queue: { pending: 0, processing: 0 },
      schema: 'current',
      checks: { database: 'ok', tts: expect.stringMatching(/^(ok|unavailable)$/), stt: expect.any(Object) },
    });
    expect(res.body.uptime_seconds).toBeGreaterThanOrEqual(0);
    for (const state of Object.values(res.body.checks.stt)) expect(['ok', 'unavailable', 'not_configured']).toContain(state);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('reports what the runtime\'s TTS pool and STT providers say', async () => {
    const rt = server.runtime;
    const res = await call(server, 'GET', '/health');
    expect(res.body.checks).toEqual({ database: 'ok', tts: rt.tts?.status() ?? 'unavailable', stt: rt.sttHealth?.() ?? {} });
  });
});

describe('GET /health with a broken database', () => {
  it('answers 503 degraded, still with the error-free shape and headers', async () => {
    const server = await startTestServer();
    try {
      await server.runtime.db.close();
      const res = await call(server, 'GET', '/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'degraded', version: VERSION, checks: { database: 'unavailable' } });
      expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
      // A Bearer route now fails inside the key lookup: a plain 500 without SQL or stack.
      const broken = await call(server, 'GET', '/v1/users/me', { key: server.key });
      expect(broken.status).toBe(500);
      expect(broken.body).toEqual({ detail: 'Internal server error', status_code: 500, request_id: broken.headers.get('x-request-id'), code: 'internal_error' });
      expect(broken.headers.get('x-ratelimit-limit')).toBe('60');
    } finally {
      await server.close();
    }
  });
});

describe('GET /health queue depth (DESIGN §9.6)', () => {
  it('counts queued and claimed work, and names the instance', async () => {
    const server = await startTestServer({ options: { ttsWorkers: 0 } });
    try {
      const speaker = (await server.runtime.db.value<string>("SELECT id FROM speakers WHERE engine = 'flite' ORDER BY seq LIMIT 1"))!;
      const items = Array.from({ length: 3 }, (_, i) => ({ speaker_id: speaker, text: `Queued item ${i}.` }));
      expect((await call(server, 'POST', '/v1/tts/batch', { key: server.key, json: { items } })).status).toBe(201);
      // An API-only instance claims nothing: all three wait.
      const res = await call(server, 'GET', '/health');
      expect(res.body.queue).toEqual({ pending: 3, processing: 0 });
      expect(res.body.instance_id).toBe(server.runtime.instanceId);
      // The database away: the last counts read, not zeros (issue 31: 0/0 while 20 items were in progress).
      await server.runtime.db.close();
      const away = await call(server, 'GET', '/health');
      expect(away.status).toBe(503);
      expect(away.body).toMatchObject({ status: 'degraded', queue: { pending: 3, processing: 0 }, schema: 'current', checks: { database: 'unavailable' } });
    } finally {
      await server.close();
    }
  });
});
