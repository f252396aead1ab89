import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { fliteSpeaker, pollJob, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';

describe('GET /v1/jobs and /v1/jobs/{id}', () => {
  let server: TestServer;
  let speaker: string;
  const ids: string[] = [];
  beforeAll(async () => {
    server = await startTestServer();
    await promoteToEnterprise(server);
    speaker = await fliteSpeaker(server.runtime.db);
    for (let i = 0; i < 3; i++) {
      const res = await call(server, 'POST', '/v1/tts/batch', { key: server.key, json: { items: [{ speaker_id: speaker, text: `Job ${i}.` }] } });
      ids.push(res.body.job_id);
    }
    for (const id of ids) await pollJob(server, id);
  });
  afterAll(async () => server.close());

  it('lists newest first with the paging envelope', async () => {
    const res = await call(server, 'GET', '/v1/jobs?limit=2', { key: server.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, limit: 2, offset: 0, has_more: true });
    expect(res.body.items.map((j: { job_id: string }) => j.job_id)).toEqual([ids[2], ids[1]]);
    expect(res.body.items[0]).toEqual({ job_id: ids[2], status: 'completed', progress: 100, total_items: 1, created_at: expect.any(String) });
    const page2 = await call(server, 'GET', '/v1/jobs?limit=2&offset=2', { key: server.key });
    expect(page2.body).toMatchObject({ total: 3, has_more: false });
    expect(page2.body.items.map((j: { job_id: string }) => j.job_id)).toEqual([ids[0]]);
  });

  it('filters by each of the five statuses and rejects others', async () => {
    for (const status of ['pending', 'processing', 'completed', 'failed', 'partial']) {
      const res = await call(server, 'GET', `/v1/jobs?status=${status}`, { key: server.key });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(status === 'completed' ? 3 : 0);
      for (const j of res.body.items) expect(j.status).toBe(status);
    }
    expect((await call(server, 'GET', '/v1/jobs?status=done', { key: server.key })).status).toBe(400);
    expect((await call(server, 'GET', '/v1/jobs?limit=0', { key: server.key })).status).toBe(400);
    expect((await call(server, 'GET', '/v1/jobs?limit=101', { key: server.key })).status).toBe(400);
    expect((await call(server, 'GET', '/v1/jobs?offset=-1', { key: server.key })).status).toBe(400);
  });

  it('answers 404 Job not found for unknown ids and for another user\'s job', async () => {
    const unknown = await call(server, 'GET', '/v1/jobs/job_doesnotexist', { key: server.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('Job not found');
    const { key } = await createUserWithKey(server.runtime.db, { email: 'other@example.com', now: new Date() });
    const other = await call(server, 'GET', `/v1/jobs/${ids[0]}`, { key: key.key });
    expect(other.status).toBe(404);
    expect(other.body.detail).toBe('Job not found');
    expect((await call(server, 'GET', '/v1/jobs', { key: key.key })).body.total).toBe(0);
  });

  it('requires a key', async () => {
    expect((await call(server, 'GET', '/v1/jobs')).status).toBe(401);
    expect((await call(server, 'GET', `/v1/jobs/${ids[0]}`)).status).toBe(401);
  });
});
