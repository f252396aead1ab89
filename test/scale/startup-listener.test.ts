import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATION_LOCK } from '../../src/server/storage/migrations/migrate-postgres.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { TEST_KEY } from '../helpers/server.js';

// DESIGN §14.14: the listener opens before the database, the migrations and the engines: while an
// instance waits for the migration lock (held here by the test, as another instance migrating would),
// /health/live answers 200, /health/ready 503 `starting` and the API 503 `Service temporarily unavailable`.
const BIN = fileURLToPath(new URL('../../bin/voxctl.js', import.meta.url));
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The first answer of `url` (retried while the connection is refused). */
async function firstAnswer(url: string, init: RequestInit = {}, timeoutMs = 30_000): Promise<Response> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fetch(url, init);
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('start-up (DESIGN §14.14)', () => {
  it('answers live, `starting` and 503 while it waits for the migration lock, then serves', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const lock = new pg.Client({ connectionString: database.url });
    await lock.connect();
    cleanups.push(() => lock.end());
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);

    const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-startup-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const proc = execa('node', [BIN, 'serve', '--port', String(port), '--data-dir', dataDir, '--workers', '1'], {
      env: { VOXCTL_DATABASE_URL: database.url, VOXCTL_BOOTSTRAP_KEY: TEST_KEY, FORCE_COLOR: '0' },
      reject: false,
      stdin: 'ignore',
    });
    cleanups.push(async () => {
      proc.kill('SIGKILL');
      await proc;
    });
    let logged = '';
    proc.stdout!.on('data', (chunk: Buffer) => (logged += chunk.toString('utf8')));
    const base = `http://127.0.0.1:${port}`;

    const live = await firstAnswer(`${base}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'not_ready', reason: 'starting' });
    const api = await fetch(`${base}/v1/speakers?limit=1`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toBe('5');
    expect(api.headers.get('x-voxctl-starting')).toBe('1');
    expect(await api.json()).toMatchObject({ detail: 'Service temporarily unavailable', status_code: 503, code: 'service_unavailable' });
    // Still waiting: nothing is migrated while the lock is held.
    expect(proc.exitCode).toBeNull();

    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    const until = Date.now() + 60_000;
    while ((await fetch(`${base}/health/ready`)).status !== 200) {
      if (Date.now() > until) throw new Error(`never ready: ${proc.stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await fetch(`${base}/v1/speakers?limit=1`, { headers: { authorization: `Bearer ${TEST_KEY}` } })).status).toBe(200);
    // The requests the starting listener answered have their one request line each (DESIGN §14.16), with
    // the id the answer carried; probes are at debug, so at the default level only the API request shows.
    const lines = logged
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const starting = lines.filter((l) => l.route === 'starting');
    expect(starting).toEqual([
      expect.objectContaining({ level: 30, msg: 'request completed', method: 'GET', status: 503, url: '/v1/speakers?limit=1', request_id: api.headers.get('x-request-id') }),
    ]);
    expect(typeof starting[0]!.duration_ms).toBe('number');
    expect(lines.filter((l) => l.route === '/health/live' || l.route === '/health/ready')).toEqual([]);
    expect(((await (await fetch(`${base}/health`)).json()) as { status: string }).status).toBe('ok');
  });
});
