import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { TEST_KEY } from '../helpers/server.js';

const BIN = fileURLToPath(new URL('../../bin/voxctl.js', import.meta.url));

// DESIGN §14.3: while PostgreSQL is away the API answers 503 with Retry-After, the log gets one line for
// the outage and one for the recovery — not one per request. A cluster of its own, so stopping it
// disturbs no other test.
describe('the database away', () => {
  let cluster: PostgresCluster;
  let proc: ResultPromise;
  let url = '';
  let stdout = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-outage-'));

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    proc = execa('node', [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'info', '--workers', '1'], {
      env: { VOXCTL_DATABASE_URL: databaseUrl(cluster.adminUrl, 'postgres'), VOXCTL_BOOTSTRAP_KEY: TEST_KEY, FORCE_COLOR: '0' },
      reject: false,
      stdin: 'ignore',
    });
    proc.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      proc.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      void proc.finally(() => reject(new Error(`serve ended: ${err}`)));
    });
  }, 120_000);

  afterAll(async () => {
    proc?.kill('SIGTERM');
    await proc;
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const me = () => fetch(`${url}/v1/users/me`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  const lines = () =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('answers 503 Service temporarily unavailable with Retry-After: 5, logs the outage once and the recovery once', async () => {
    expect((await me()).status).toBe(200);
    await cluster.pause();
    const outageRequests: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await me();
      outageRequests.push(res.headers.get('x-request-id')!);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ detail: 'Service temporarily unavailable', status_code: 503, code: 'service_unavailable' });
    }
    // Speakers (public, cached catalogue reads) and health must not turn into 500s either.
    expect([200, 503]).toContain((await fetch(`${url}/v1/speakers?limit=1`)).status);
    expect((await fetch(`${url}/health`)).status).toBe(503);
    expect((await fetch(`${url}/health/live`)).status).toBe(200);
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(503);
    // DESIGN §14.17: the last probe did not reach the database.
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^voxctl_db_up 0$/m);
    expect(await ready.json()).toMatchObject({ status: 'not_ready' });
    await new Promise((r) => setTimeout(r, 2_500)); // background pollers run meanwhile: they must stay quiet too
    await cluster.resume();
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await me()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
    await expect.poll(() => lines().filter((l) => l.event === 'database_recovered').length, { timeout: 10_000 }).toBe(1);
    const logged = lines();
    expect(logged.filter((l) => l.event === 'database_unavailable')).toHaveLength(1);
    // No per-request or per-poll error lines: the outage is said once.
    const errors = logged.filter((l) => Number(l.level) >= 50 && l.event !== 'database_unavailable');
    expect(errors.map((l) => l.msg)).toEqual([]);
    // DESIGN §14.16: a request during the outage is still one line, with no stack trace.
    for (const id of outageRequests) {
      const mine = logged.filter((l) => l.reqId === id || l.request_id === id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ route: '/v1/users/me', status: 503 });
      expect(JSON.stringify(mine[0])).not.toContain('stack');
    }
  }, 120_000);
});
