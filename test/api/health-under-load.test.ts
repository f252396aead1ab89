import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { fliteSpeaker, pollJob, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { loopFreedomDuring } from '../helpers/event-loop.js';

describe('the event loop stays free while a batch runs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await promoteToEnterprise(server);
  });
  afterAll(async () => server.close());

  // The latency figure itself belongs to bench/ (bench/server.mjs); here: the loop is not held by synthesis.
  it('/health answers and the event loop ticks freely during a 100-item batch', async () => {
    const speaker = await fliteSpeaker(server.runtime.db);
    // Long enough that synthesis lasts seconds however fast the engine gets: the probes must sample it.
    const text = 'Health check under load, sentence {i}. It has several parts, and each one is spoken in full by the engine. '.repeat(2);
    const items = Array.from({ length: 100 }, (_, i) => ({ speaker_id: speaker, text: text.replaceAll('{i}', String(i)).trim() }));
    const created = await call(server, 'POST', '/v1/tts/batch', { key: server.key, json: { items } });
    expect(created.status).toBe(201);
    const jobId = created.body.job_id as string;
    let probesWhileRunning = 0;
    // The server runs in this process, so this thread's timers starve if it synthesises on the loop.
    const { idle, busy, result: status } = await loopFreedomDuring(async () => {
      let status = 'pending';
      while (status === 'pending' || status === 'processing') {
        // With the key, the probes count under the enterprise limit, not the 60/min anonymous one.
        const res = await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${server.key}` } });
        await res.arrayBuffer();
        expect(res.status).toBe(200);
        await new Promise((r) => setTimeout(r, 40));
        status = (await call(server, 'GET', `/v1/jobs/${jobId}`, { key: server.key })).body.status;
        // Only a probe followed by a still-running job was answered during synthesis.
        if (status === 'pending' || status === 'processing') probesWhileRunning++;
      }
      return status;
    });
    expect(status).toBe('completed');
    expect(probesWhileRunning).toBeGreaterThanOrEqual(20);
    expect(busy, `timers ran ${(100 * busy).toFixed(0)}% of the time (idle: ${(100 * idle).toFixed(0)}%)`).toBeGreaterThan(idle / 3);
    await pollJob(server, jobId);
  }, 180_000);
});
