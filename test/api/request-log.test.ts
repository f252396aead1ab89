import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { TEST_KEY } from '../helpers/server.js';
import { backendFor } from '../helpers/postgres.js';
import { buildApp } from '../../src/server/app.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { loggerOptions, serializeRequest } from '../../src/server/logger.js';

// DESIGN §14.16: one line per request, when it completes, the only one of the request that carries
// `status` or `route`; probes at debug. The app runs with the server's own logger (request logger factory,
// mixin, serializers), its lines collected here.
describe('request log lines', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-reqlog-'));
  const lines: Record<string, unknown>[] = [];
  let runtime: Runtime;
  let app: FastifyInstance;

  beforeAll(async () => {
    runtime = await createRuntime({ dataDir, ...(await backendFor(dataDir)), host: '127.0.0.1', port: 0, allowPrivateAudioUrls: false, bootstrapKey: TEST_KEY, logLevel: 'silent', ttsWorkers: 1 });
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    runtime.logger = pino({ ...loggerOptions('info'), serializers: { req: serializeRequest } }, stream);
    app = await buildApp(runtime);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The lines written for the request whose response carried `id`. */
  const linesOf = async (id: string) => {
    await new Promise((r) => setImmediate(r));
    return lines.filter((l) => l.reqId === id || l.request_id === id);
  };

  it('writes one line for an authenticated request, with method, route pattern, status, duration, request and caller ids', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(res.statusCode).toBe(200);
    const mine = await linesOf(res.headers['x-request-id'] as string);
    expect(mine, JSON.stringify(mine)).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      level: 30,
      method: 'GET',
      route: '/v1/users/me',
      status: 200,
      duration_ms: expect.any(Number),
      request_id: res.headers['x-request-id'],
      user_id: expect.stringMatching(/^usr_/),
      key_id: expect.any(String),
    });
  });

  it("names the route by its pattern, not the URL, and an anonymous request's line has no caller", async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/jobs/job_nothere', headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(res.statusCode).toBe(404);
    const [line, ...more] = await linesOf(res.headers['x-request-id'] as string);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ method: 'GET', route: '/v1/jobs/:job_id', status: 404 });
    const anon = await app.inject({ method: 'GET', url: '/v1/users/me' });
    expect(anon.statusCode).toBe(401);
    const anonLines = await linesOf(anon.headers['x-request-id'] as string);
    expect(anonLines).toHaveLength(1);
    expect(anonLines[0]).toMatchObject({ route: '/v1/users/me', status: 401 });
    expect(anonLines[0]).not.toHaveProperty('user_id');
  });

  it('writes the line, and counts the request, when the router answers before any hook (a malformed URL, an over-long parameter)', async () => {
    for (const [url, status] of [
      ['/v1/jobs/%E0%A4%A', 400],
      [`/v1/jobs/${'j'.repeat(600)}`, 414],
    ] as const) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(status);
      const mine = await linesOf(res.headers['x-request-id'] as string);
      expect(mine, url).toHaveLength(1);
      expect(mine[0]).toMatchObject({ level: 30, method: 'GET', route: 'unmatched', status, request_id: res.headers['x-request-id'] });
    }
    const metrics = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(metrics.body).toMatch(/voxctl_http_requests_total\{method="GET",route="unmatched",status="414"\} 1/);
  });

  it('no other line carries status or route', async () => {
    await app.inject({ method: 'GET', url: '/v1/speakers?limit=1' });
    await new Promise((r) => setImmediate(r));
    const requestLines = lines.filter((l) => 'status' in l || 'route' in l || 'res' in l || 'req' in l);
    expect(requestLines.every((l) => l.msg === 'request completed')).toBe(true);
    expect(new Set(requestLines.map((l) => l.request_id)).size).toBe(requestLines.length);
  });

  it('logs /health* and /metrics at debug', async () => {
    const quiet: string[] = [];
    for (const url of ['/health', '/health/live', '/health/ready', '/metrics']) {
      const res = await app.inject({ method: 'GET', url, remoteAddress: '127.0.0.1' });
      quiet.push(res.headers['x-request-id'] as string);
    }
    await new Promise((r) => setImmediate(r));
    // At info nothing of them is written; at debug each is one line.
    expect(lines.filter((l) => quiet.includes(l.request_id as string) || quiet.includes(l.reqId as string))).toEqual([]);
    runtime.logger.level = 'debug';
    try {
      const res = await app.inject({ method: 'GET', url: '/health/live' });
      const health = await linesOf(res.headers['x-request-id'] as string);
      expect(health).toHaveLength(1);
      expect(health[0]).toMatchObject({ level: 20, route: '/health/live', status: 200 });
    } finally {
      runtime.logger.level = 'info';
    }
  });
});
