import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import type { Db } from '../../src/server/storage/sql/types.js';
import { call } from '../helpers/core-http.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { TEST_KEY } from '../helpers/server.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { startFakeS3 } from '../helpers/fake-s3.js';

// Several `voxctl serve` processes, each with a data dir of its own, on one PostgreSQL (DESIGN §9).
// Short leases (VOXCTL_LEASE_SECONDS) so a dead instance's items come back within the test.
const LEASE_SECONDS = '10';

const running: ServeProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await Promise.allSettled(running.splice(0).map((s) => s.stop('SIGKILL')));
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function cluster(n: number, opts: { workers?: number[]; empty?: boolean; env?: Record<string, string>; args?: string[] } = {}) {
  const database = await createTestDatabase({ fromTemplate: !opts.empty });
  const db = createPostgresDb({ connectionString: database.url, max: 4 });
  cleanups.push(database.drop, () => db.close());
  const start = (i: number) => {
    const dataDir = mkdtempSync(join(tmpdir(), `voxctl-inst${i}-`));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    return startServe(dataDir, {
      env: { VOXCTL_DATABASE_URL: database.url, VOXCTL_LEASE_SECONDS: LEASE_SECONDS, ...opts.env },
      args: ['--workers', String(opts.workers?.[i] ?? 1), ...(opts.args ?? [])],
    });
  };
  const instances = await Promise.all(Array.from({ length: n }, (_, i) => start(i)));
  running.push(...instances);
  return { instances, db, url: database.url };
}

const instanceId = async (s: ServeProcess): Promise<string> => (await call(s, 'GET', '/health')).body.instance_id as string;

async function flite(db: Db): Promise<string> {
  return (await db.value<string>("SELECT id FROM speakers WHERE engine = 'flite' ORDER BY seq LIMIT 1"))!;
}

async function submitBatch(s: ServeProcess, speaker: string, n: number, key = TEST_KEY): Promise<string> {
  const items = Array.from({ length: n }, (_, i) => ({ speaker_id: speaker, text: `Item number ${i + 1} of the shared batch.` }));
  const res = await call(s, 'POST', '/v1/tts/batch', { key, json: { items } });
  expect(res.status).toBe(201);
  return res.body.job_id as string;
}

async function waitForJob(s: ServeProcess, jobId: string, timeoutMs = 240_000): Promise<Record<string, unknown>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(s, 'GET', `/v1/jobs/${jobId}`, { key: TEST_KEY });
    if (['completed', 'failed', 'partial'].includes(res.body.status as string)) return res.body;
    if (Date.now() > until) throw new Error(`job ${jobId} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('two instances on one PostgreSQL (DESIGN §9)', () => {
  it('work a 100-item batch together: both claim items, 100 distinct files, charged once', async () => {
    const { instances: [a, b], db } = await cluster(2);
    const [idA, idB] = [await instanceId(a!), await instanceId(b!)];
    expect(idA).not.toBe(idB);
    const speaker = await flite(db);
    const before = (await call(a!, 'GET', '/v1/users/usage', { key: TEST_KEY })).body.characters_used as number;
    const jobId = await submitBatch(a!, speaker, 100);
    const job = await waitForJob(b!, jobId);
    expect(job.status).toBe('completed');
    const owners = await db.column<string>('SELECT DISTINCT lease_owner FROM job_items WHERE job_id = ?', [jobId]);
    expect(owners.sort()).toEqual([idA, idB].sort());
    const audio = await db.column<string>('SELECT audio_id FROM job_items WHERE job_id = ?', [jobId]);
    expect(new Set(audio).size).toBe(100);
    expect(await db.value('SELECT count(*) FROM audio WHERE id IN (SELECT audio_id FROM job_items WHERE job_id = ?)', [jobId])).toBe(100);
    const characters = (await db.value<number>('SELECT sum(characters) FROM job_items WHERE job_id = ?', [jobId]))!;
    const after = (await call(b!, 'GET', '/v1/users/usage', { key: TEST_KEY })).body.characters_used as number;
    expect(after - before).toBe(characters);
  }, 300_000);

  it('finishes a batch after one instance is SIGKILLed mid-way, once its leases expire', async () => {
    const { instances: [a, b], db } = await cluster(2);
    const idA = await instanceId(a!);
    const speaker = await flite(db);
    const before = (await call(a!, 'GET', '/v1/users/usage', { key: TEST_KEY })).body.characters_used as number;
    const jobId = await submitBatch(a!, speaker, 100);
    // Kill A while it holds leases on items it has not finished.
    for (;;) {
      const held = await db.value<number>("SELECT count(*) FROM job_items WHERE job_id = ? AND lease_owner = ? AND status = 'processing'", [jobId, idA]);
      const done = await db.value<number>("SELECT count(*) FROM job_items WHERE job_id = ? AND status = 'success'", [jobId]);
      if (held! > 0 && done! >= 5) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await a!.stop('SIGKILL');
    const job = await waitForJob(b!, jobId);
    expect(job.status).toBe('completed');
    expect(job.completed_items).toBe(100);
    const audio = await db.column<string>('SELECT audio_id FROM job_items WHERE job_id = ?', [jobId]);
    expect(new Set(audio).size).toBe(100);
    expect(await db.value("SELECT count(*) FROM audio WHERE id LIKE ?", [`aud_${jobId.replace(/^job_/, '')}_%`])).toBe(100);
    const characters = (await db.value<number>('SELECT sum(characters) FROM job_items WHERE job_id = ?', [jobId]))!;
    const after = (await call(b!, 'GET', '/v1/users/usage', { key: TEST_KEY })).body.characters_used as number;
    expect(after - before).toBe(characters);
    // Every file B lists is served, whole.
    const results = (await call(b!, 'GET', `/v1/jobs/${jobId}`, { key: TEST_KEY })).body.results as { audio_url: string }[];
    const sample = results[37]!.audio_url;
    const res = await fetch(new URL(new URL(sample).pathname + new URL(sample).search, b!.url));
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).subarray(0, 4).toString()).toBe('RIFF');
  }, 300_000);

  it('serves from B an audio URL signed by A, with Range', async () => {
    const { instances: [a, b], db } = await cluster(2);
    const speaker = await flite(db);
    const made = await call(a!, 'POST', '/v1/tts/synthesize', { key: TEST_KEY, json: { speaker_id: speaker, text: 'Signed by one, served by the other.' } });
    expect(made.status).toBe(200);
    const url = new URL(made.body.audio_url as string);
    const fromA = Buffer.from(await (await fetch(new URL(url.pathname + url.search, a!.url))).arrayBuffer());
    const fromB = await fetch(new URL(url.pathname + url.search, b!.url));
    expect(fromB.status).toBe(200);
    expect(Buffer.from(await fromB.arrayBuffer())).toEqual(fromA);
    const part = await fetch(new URL(url.pathname + url.search, b!.url), { headers: { range: 'bytes=4-11' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-11/${fromA.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(fromA.subarray(4, 12));
  }, 120_000);

  it('grants a starter key exactly 60 of 80 requests alternating between the instances', async () => {
    const { instances: [a, b], db } = await cluster(2, { workers: [0, 0] });
    const key = await starterKey(a!, db);
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        const res = await call(i % 2 === 0 ? a! : b!, 'GET', '/v1/users/me', { key });
        statuses.push(res.status);
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  }, 120_000);

  it('never overshoots a quota with 20 parallel syntheses split across both', async () => {
    const { instances: [a, b], db } = await cluster(2);
    const speaker = await flite(db);
    const key = await starterKey(a!, db);
    const userId = (await db.value<string>("SELECT user_id FROM api_keys WHERE prefix = ?", [key.slice(0, 8)]))!;
    const limit = 100_000;
    const text = 'x'.repeat(1000).replace(/x/g, (_, i: number) => (i % 6 === 5 ? ' ' : 'a'));
    // Leave room for exactly 7 of the 20.
    const period = (await call(a!, 'GET', '/v1/users/usage', { key })).body.period_start as string;
    await db.run('INSERT INTO usage_periods (user_id, period_start, characters_used) VALUES (?, ?, ?) ON CONFLICT (user_id, period_start) DO UPDATE SET characters_used = excluded.characters_used', [userId, period.slice(0, 10), limit - 7_000 - 500]);
    const used = async () => (await call(b!, 'GET', '/v1/users/usage', { key })).body.characters_used as number;
    const start = await used();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(i % 2 === 0 ? a! : b!, 'POST', '/v1/tts/synthesize', { key, json: { speaker_id: speaker, text } })),
    );
    const ok = replies.filter((r) => r.status === 200).length;
    expect(ok).toBe(7);
    expect(replies.filter((r) => r.status === 429).map((r) => r.body.code)).toEqual(Array(13).fill('quota_exceeded'));
    expect(await used()).toBe(start + 7 * 1000);
    expect(await used()).toBeLessThanOrEqual(limit);
  }, 180_000);

  it('migrates an empty database once when two instances start at the same moment, and both serve', async () => {
    const { instances, db } = await cluster(2, { empty: true, workers: [0, 0] });
    const versions = await db.column<number>('SELECT version FROM voxctl_schema_migrations ORDER BY version');
    expect(new Set(versions).size).toBe(versions.length);
    expect(await db.value('SELECT count(*) FROM users')).toBe(1);
    for (const s of instances) expect((await call(s, 'GET', '/v1/users/me', { key: TEST_KEY })).status).toBe(200);
  }, 120_000);

  it('keep audio in an S3-compatible store (--audio-store, --s3-endpoint, AWS_* variables): written by A, served by B', async () => {
    const fake = await startFakeS3({ buckets: ['voxctl-audio'] });
    cleanups.push(() => fake.close());
    const { instances: [a, b], db } = await cluster(2, {
      args: ['--audio-store', 's3://voxctl-audio/team', '--s3-endpoint', fake.endpoint],
      env: { AWS_ACCESS_KEY_ID: fake.accessKeyId, AWS_SECRET_ACCESS_KEY: fake.secretAccessKey, AWS_REGION: fake.region },
    });
    const speaker = await flite(db);
    const made = await call(a!, 'POST', '/v1/tts/synthesize', { key: TEST_KEY, json: { speaker_id: speaker, text: 'Stored in a bucket.' } });
    expect(made.status).toBe(200);
    const url = new URL(made.body.audio_url as string);
    const id = /\/v1\/audio\/(aud_[^.]+)\.wav$/.exec(url.pathname)![1]!;
    const stored = fake.buckets.get('voxctl-audio')!.get(`team/${id}.wav`);
    expect(stored?.contentType).toBe('audio/wav');
    // Nothing of it in the database: the bytes live in the bucket only.
    expect(await db.value('SELECT count(*) FROM audio_blobs')).toBe(0);
    const fromB = await fetch(new URL(url.pathname + url.search, b!.url), { headers: { range: 'bytes=0-3' } });
    expect(fromB.status).toBe(206);
    expect(Buffer.from(await fromB.arrayBuffer()).toString()).toBe('RIFF');
    expect(fake.requests.some((r) => r.method === 'GET' && r.key === `team/${id}.wav` && r.headers.range === 'bytes=0-3')).toBe(true);
  }, 120_000);

  it('never shows the database password: not in logs, /health, or a refused start', async () => {
    const { instances: [a], url } = await cluster(1, { env: {}, workers: [0] });
    const password = decodeURIComponent(new URL(url).password);
    const health = await call(a!, 'GET', '/health');
    expect(health.text).not.toContain(password);
    expect(a!.output()).not.toContain(password);
    const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-badpw-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const bad = new URL(url);
    bad.password = `wrong-${randomBytes(4).toString('hex')}`;
    const refused = await startServe(dataDir, { env: { VOXCTL_DATABASE_URL: bad.toString() }, logLevel: 'info' }).then(
      () => 'started',
      (e: Error) => e.message,
    );
    expect(refused).toMatch(/PostgreSQL at postgres:\/\/voxctl_test:\*\*\*@127\.0\.0\.1/);
    expect(refused).not.toContain(bad.password);
  }, 120_000);
});

/** A new starter user's full key, made through the admin API of the bootstrap user. */
async function starterKey(s: ServeProcess, db: Db): Promise<string> {
  const { createUserWithKey } = await import('../../src/server/features/accounts/users.js');
  const made = await createUserWithKey(db, { email: `starter-${randomBytes(4).toString('hex')}@example.com`, tier: 'starter', now: new Date() });
  void s;
  return made.key.key;
}
