import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { gitHeadCommit } from '../../src/shared/version.js';

// No types ship with it: one function from Prometheus' text format to metric families.
const parsePrometheusTextFormat = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => { name: string; type: string; metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string> }[] }[];

let server: TestServer;
let tokenServer: TestServer;

beforeAll(async () => {
  [server, tokenServer] = await Promise.all([startTestServer(), startTestServer({ options: { metricsToken: 'scrape-me-0123456789' } })]);
});
afterAll(async () => {
  await Promise.all([server?.close(), tokenServer?.close()]);
});

describe('liveness and readiness (DESIGN §14.2)', () => {
  it('/health/live answers ok and /health/ready ready, without a key, in /openapi.json', async () => {
    const live = await server.app.inject({ method: 'GET', url: '/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
    const ready = await server.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
    const spec = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/health/live', '/health/ready']));
  });

  it('is not rate-limited: 100 probes from one address all answer', async () => {
    for (let i = 0; i < 100; i++) {
      const url = i % 2 ? '/health/live' : '/health/ready';
      expect((await server.app.inject({ method: 'GET', url, remoteAddress: '10.9.8.7' })).statusCode).toBe(200);
    }
  });

  it('/health/ready is 503 not_ready with a reason when the engines are down', async () => {
    const tts = server.runtime.tts;
    server.runtime.tts = { ...tts, status: () => 'unavailable' };
    try {
      const res = await server.app.inject({ method: 'GET', url: '/health/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'not_ready', reason: 'speech engines not loaded' });
    } finally {
      server.runtime.tts = tts;
    }
  });
});

describe('the build (DESIGN §14.8)', () => {
  it('/health carries the commit of this checkout beside the version', async () => {
    const body = (await server.app.inject({ method: 'GET', url: '/health' })).json() as { version: string; commit: string | null };
    expect(body.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(body.commit).toBe(gitHeadCommit());
  });
});

describe('/metrics (DESIGN §14.4)', () => {
  const scrape = (s: TestServer, opts: { remoteAddress?: string; token?: string } = {}) =>
    s.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: opts.remoteAddress ?? '127.0.0.1',
      headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
    });

  it('gives loopback callers the Prometheus text format with the service families', async () => {
    await server.app.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization: `Bearer ${server.key}` } });
    await server.app.inject({ method: 'GET', url: '/v1/speakers/spk_nope' });
    const res = await scrape(server);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = new Map(parsePrometheusTextFormat(res.body).map((f) => [f.name, f]));
    for (const [name, type] of [
      ['voxctl_http_requests_total', 'COUNTER'],
      ['voxctl_http_request_duration_seconds', 'HISTOGRAM'],
      ['voxctl_queue_items', 'GAUGE'],
      ['voxctl_tts_busy_workers', 'GAUGE'],
      ['process_resident_memory_bytes', 'GAUGE'],
      ['nodejs_eventloop_lag_seconds', 'GAUGE'],
    ] as const) {
      expect(families.get(name)?.type, name).toBe(type);
    }
    const requests = families.get('voxctl_http_requests_total')!.metrics;
    // Labelled by route pattern, never the raw URL (ids would make a series per request).
    expect(requests).toContainEqual(expect.objectContaining({ labels: { method: 'GET', route: '/v1/users/me', status: '200' } }));
    expect(requests.some((m) => m.labels?.route?.includes('spk_nope'))).toBe(false);
    const queue = families.get('voxctl_queue_items')!.metrics.map((m) => m.labels);
    expect(queue).toEqual(expect.arrayContaining([{ kind: 'batch_item', state: 'pending' }, { kind: 'evaluation_synthesis', state: 'processing' }]));
    if (server.runtime.db.dialect === 'postgres') {
      expect(families.get('voxctl_db_pool_connections')?.metrics.map((m) => m.labels?.state).sort()).toEqual(['busy', 'idle', 'waiting']);
    }
  });

  it('answers any other caller 404 unless it presents the metrics token; never rate-limited', async () => {
    expect((await scrape(server, { remoteAddress: '203.0.113.7' })).statusCode).toBe(404);
    expect((await scrape(server, { remoteAddress: '203.0.113.7', token: 'anything' })).statusCode).toBe(404);
    expect((await scrape(tokenServer, { remoteAddress: '203.0.113.7' })).statusCode).toBe(404);
    expect((await scrape(tokenServer, { remoteAddress: '203.0.113.7', token: 'wrong-token-000000000' })).statusCode).toBe(404);
    const ok = await scrape(tokenServer, { remoteAddress: '203.0.113.7', token: 'scrape-me-0123456789' });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('voxctl_http_requests_total');
    for (let i = 0; i < 70; i++) expect((await scrape(server)).statusCode).toBe(200);
  });
});
