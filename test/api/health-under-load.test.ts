import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { fliteSpeaker, pollJob, promoteToEnterprise } from '../helpers/audio-jobs.js';

describe('the event loop stays free while a batch runs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await promoteToEnterprise(server);
  });
  afterAll(async () => server.close());

  it('/health answers in < 100 ms p99 during a 100-item batch', async () => {
    const speaker = fliteSpeaker(server.runtime.db);
    const items = Array.from({ length: 100 }, (_, i) => ({ speaker_id: speaker, text: `Health check under load, sentence ${i}. It has two parts.` }));
    const created = await call(server, 'POST', '/v1/tts/batch', { key: server.key, json: { items } });
    expect(created.status).toBe(201);
    const jobId = created.body.job_id as string;
    const latencies: number[] = [];
    let status = 'pending';
    while (status === 'pending' || status === 'processing') {
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        // With the key, the probes count under the enterprise limit, not the 60/min anonymous one.
        const res = await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${server.key}` } });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        expect(res.status).toBe(200);
        await new Promise((r) => setTimeout(r, 40));
      }
      status = (await call(server, 'GET', `/v1/jobs/${jobId}`, { key: server.key })).body.status;
    }
    expect(status).toBe('completed');
    expect(latencies.length).toBeGreaterThan(50);
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)]!;
    expect(p99, `p99 ${p99.toFixed(1)} ms over ${latencies.length} requests`).toBeLessThan(100);
    await pollJob(server, jobId);
  }, 180_000);
});
