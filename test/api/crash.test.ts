import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/core-http.js';
import { TEST_KEY } from '../helpers/server.js';
import { startServe } from '../helpers/serve-process.js';
import { audioBlobNames, audioDebris, withBackendDb } from '../helpers/backend-db.js';

describe('crash safety (a real server process, SIGKILL mid-batch)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-crash-'));
  const procs: ResultPromise[] = [];
  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.allSettled(procs);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the job after a restart: completed, 100 distinct files, charged exactly once', async () => {
    // Short leases: on PostgreSQL the restarted instance takes over the killed one's claimed items only once
    // their leases expire (DESIGN §9.3), 60 s by default; on SQLite the restart requeues them at once.
    const serve = () => startServe(dataDir, { env: { VOXCTL_LEASE_SECONDS: '10' } });
    let server = await serve();
    procs.push(server.proc);
    const flite = await withBackendDb(dataDir, (db) => db.column<string>(`SELECT id FROM speakers WHERE engine = 'flite' ORDER BY id LIMIT 4`));
    const items = Array.from({ length: 100 }, (_, i) => ({ speaker_id: flite[i % flite.length], text: `This is batch item number ${i}.` }));
    const expectedChars = items.reduce((n, it) => n + [...it.text].length, 0);
    const usage0 = (await call(server, 'GET', '/v1/users/usage', { key: TEST_KEY })).body.characters_used as number;

    const created = await call(server, 'POST', '/v1/tts/batch', { key: TEST_KEY, json: { items } });
    expect(created.status).toBe(201);
    const jobId = created.body.job_id as string;

    // Kill while processing: some items done, most not.
    for (;;) {
      const job = await call(server, 'GET', `/v1/jobs/${jobId}`, { key: TEST_KEY });
      expect(['pending', 'processing'], JSON.stringify(job.body)).toContain(job.body.status);
      if (job.body.completed_items >= 5) {
        expect(job.body.completed_items).toBeLessThan(100);
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    server.proc.kill('SIGKILL');
    await server.proc;
    // The kill caught items mid-synthesis: the restart has real recovery work to do.
    const left = await withBackendDb(dataDir, (db) =>
      db.all<{ status: string; n: number }>(`SELECT status, COUNT(*) AS n FROM job_items WHERE job_id = ? GROUP BY status`, [jobId]),
    );
    const count = (status: string) => left.find((r) => r.status === status)?.n ?? 0;
    expect(count('processing')).toBeGreaterThan(0);
    expect(count('pending')).toBeGreaterThan(0);

    server = await serve();
    procs.push(server.proc);
    let final;
    const deadline = Date.now() + 120_000;
    for (;;) {
      final = (await call(server, 'GET', `/v1/jobs/${jobId}`, { key: TEST_KEY })).body;
      if (!['pending', 'processing'].includes(final.status) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(final).toMatchObject({ status: 'completed', completed_items: 100, failed_items: 0, progress: 100 });
    const urls = final.results.map((r: { audio_url: string }) => new URL(r.audio_url).pathname);
    expect(new Set(urls).size).toBe(100);
    // Audio files on SQLite, `audio_blobs` rows on PostgreSQL: one per item, and no debris of the killed writes.
    const files = (await audioBlobNames(dataDir)).filter((f) => f.startsWith('aud_'));
    expect(files).toHaveLength(100);
    expect(await audioDebris(dataDir)).toEqual([]);
    for (const r of final.results.slice(0, 3)) expect((await fetch(r.audio_url)).status).toBe(200);
    const usage1 = (await call(server, 'GET', '/v1/users/usage', { key: TEST_KEY })).body.characters_used as number;
    expect(usage1 - usage0).toBe(expectedChars);
    server.proc.kill('SIGTERM');
    await server.proc;
  }, 180_000);
});
