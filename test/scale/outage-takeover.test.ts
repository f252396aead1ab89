import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/server/storage/sql/postgres.js';
import type { Db } from '../../src/server/storage/sql/types.js';
import { call } from '../helpers/core-http.js';
import { databaseUrl, startPostgresCluster } from '../helpers/postgres-cluster.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { TEST_KEY } from '../helpers/server.js';

// DESIGN §14.10 and §14.11 with real processes on a real PostgreSQL: a database outage under two instances
// loses no work and makes no instance take the other for dead; a SIGKILLed instance's items are finished by
// the other before the backlog. The lease is the production default (60 s): a takeover here is a judgement
// of a heartbeat, as in production, never a short test lease running out.
const BIN = fileURLToPath(new URL('../../bin/voxctl.js', import.meta.url));

interface Instance {
  url: string;
  proc: ResultPromise;
  /** The JSON log lines written so far. */
  lines(): Record<string, unknown>[];
}

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `voxctl serve` on `url` with its log lines kept (stdout, level info). */
async function serve(url: string): Promise<Instance> {
  const dataDir = mkdtempSync(join(tmpdir(), 'voxctl-outage-inst-'));
  const proc = execa('node', [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'info', '--workers', '1'], {
    env: { VOXCTL_DATABASE_URL: url, VOXCTL_BOOTSTRAP_KEY: TEST_KEY, FORCE_COLOR: '0' },
    reject: false,
    stdin: 'ignore',
  });
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  cleanups.push(async () => {
    proc.kill('SIGKILL');
    await proc;
  });
  let stdout = '';
  proc.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  const listening = await new Promise<string>((resolve, reject) => {
    let err = '';
    proc.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    void proc.finally(() => reject(new Error(`serve ended: ${err}`)));
  });
  const lines = () =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { url: listening, proc, lines };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function flite(db: Db): Promise<string> {
  return (await db.value<string>("SELECT id FROM speakers WHERE engine = 'flite' ORDER BY seq LIMIT 1"))!;
}

async function submitBatch(s: Pick<Instance, 'url'>, speaker: string, texts: string[]): Promise<string> {
  const res = await call(s, 'POST', '/v1/tts/batch', { key: TEST_KEY, json: { items: texts.map((text) => ({ speaker_id: speaker, text })) } });
  expect(res.status).toBe(201);
  return res.body.job_id as string;
}

/** The characters used this period, asked of `s` until it answers (it may be recovering from an outage). */
async function usage(s: Pick<Instance, 'url'>): Promise<number> {
  for (;;) {
    const res = await call(s, 'GET', '/v1/users/usage', { key: TEST_KEY }).catch(() => undefined);
    if (res?.status === 200) return res.body.characters_used as number;
    await sleep(250);
  }
}

describe('outages and takeovers under two instances (DESIGN §14.10, §14.11)', () => {
  it('a 45 s PostgreSQL outage during a batch: every item done exactly once, charged once, no takeover, no database text on any item', async () => {
    const cluster = await startPostgresCluster();
    cleanups.push(() => cluster.stop());
    const url = databaseUrl(cluster.adminUrl, 'postgres');
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    const db = createPostgresDb({ connectionString: url, max: 2 });
    cleanups.push(() => db.close());
    const speaker = await flite(db);
    const before = await usage(a!);
    const texts = Array.from({ length: 60 }, (_, i) => `Item ${i + 1} of the batch that lives through an outage of its database, read at an even pace.`);
    const jobId = await submitBatch(a!, speaker, texts);
    // The outage starts while both instances hold items and most of the batch still waits.
    for (;;) {
      const owners = await db.column<string>("SELECT DISTINCT lease_owner FROM job_items WHERE job_id = ? AND status = 'processing'", [jobId]);
      const done = Number(await db.value("SELECT count(*) FROM job_items WHERE job_id = ? AND status = 'success'", [jobId]));
      if (owners.length === 2 && done >= 4) break;
      await sleep(50);
    }
    await cluster.pause();
    const pausedAt = Date.now();
    await sleep(45_000 - (Date.now() - pausedAt));
    await cluster.resume();
    const resumedAt = Date.now();
    let job: Record<string, unknown> = {};
    for (;;) {
      const res = await call(b!, 'GET', `/v1/jobs/${jobId}`, { key: TEST_KEY }).catch(() => undefined);
      if (res?.status === 200) {
        job = res.body as Record<string, unknown>;
        if (['completed', 'failed', 'partial'].includes(job.status as string)) break;
      }
      if (Date.now() - resumedAt > 240_000) throw new Error(`job still ${String(job.status)}`);
      await sleep(250);
    }
    const finishedAt = Date.now();
    // "Right after": a takeover would come within a lease or a heartbeat's 30 s of the recovery.
    await sleep(Math.max(0, 35_000 - (Date.now() - resumedAt)));
    const items = await db.all<{ status: string; error: string | null; audio_id: string | null; characters: number }>(
      'SELECT status, error, audio_id, characters FROM job_items WHERE job_id = ? ORDER BY idx',
      [jobId],
    );
    console.info(
      `outage figures: ${items.filter((i) => i.status === 'failed').length} failed item(s); job finished ${((finishedAt - resumedAt) / 1000).toFixed(1)} s after the database returned`,
    );
    expect(items.filter((i) => i.error !== null).map((i) => i.error)).toEqual([]);
    expect(job).toMatchObject({ status: 'completed', completed_items: 60, failed_items: 0 });
    expect(items.every((i) => i.status === 'success')).toBe(true);
    // Exactly once: one audio row and one stored blob per item.
    const audio = items.map((i) => i.audio_id!);
    expect(new Set(audio).size).toBe(60);
    expect(Number(await db.value('SELECT count(*) FROM audio WHERE id LIKE ?', [`aud_${jobId.replace(/^job_/, '')}_%`]))).toBe(60);
    expect(Number(await db.value('SELECT count(*) FROM audio_blobs WHERE name LIKE ?', [`aud_${jobId.replace(/^job_/, '')}_%`]))).toBe(60);
    // Charged once.
    expect((await usage(b!)) - before).toBe(items.reduce((n, i) => n + i.characters, 0));
    // Neither instance took the other for dead; no item failed on the database.
    for (const s of [a!, b!]) {
      const lines = s.lines();
      expect(lines.filter((l) => l.event === 'lease_takeover')).toEqual([]);
      expect(lines.filter((l) => l.event === 'work_item_failed')).toEqual([]);
      expect(lines.filter((l) => l.event === 'database_recovered').length).toBeGreaterThanOrEqual(1);
    }
  }, 420_000);

  it("a SIGKILLed instance's items are finished by the other before the 200 items pending behind them", async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const [a, b] = await Promise.all([serve(database.url), serve(database.url)]);
    const db = createPostgresDb({ connectionString: database.url, max: 2 });
    cleanups.push(() => db.close());
    const idA = (await call(a!, 'GET', '/health')).body.instance_id as string;
    const idB = (await call(b!, 'GET', '/health')).body.instance_id as string;
    const speaker = await flite(db);
    // Long items, so the backlog outlasts the 30 s in which the killed instance's heartbeat goes stale.
    const text = (n: number) => `Backlog item ${n}. ${'This sentence keeps the synthesis busy for a while, so the queue behind it stays long. '.repeat(4)}`;
    const jobs: string[] = [];
    for (let j = 0; j < 3; j++) jobs.push(await submitBatch(a!, speaker, Array.from({ length: 100 }, (_, i) => text(j * 100 + i))));
    const pending = async () => Number(await db.value("SELECT count(*) FROM job_items WHERE status = 'pending'"));
    let held: { job_id: string; idx: number }[] = [];
    for (;;) {
      held = await db.all("SELECT job_id, idx FROM job_items WHERE status = 'processing' AND lease_owner = ?", [idA]);
      if (held.length > 0) break;
      await sleep(20);
    }
    a!.proc.kill('SIGKILL');
    await a!.proc;
    const killedAt = Date.now();
    // A is dead: what it held is frozen now.
    held = await db.all("SELECT job_id, idx FROM job_items WHERE status = 'processing' AND lease_owner = ?", [idA]);
    expect(held.length).toBeGreaterThan(0);
    const pendingAtKill = await pending();
    expect(pendingAtKill).toBeGreaterThanOrEqual(200);
    const heldNow = () =>
      db.all<{ status: string; lease_owner: string | null }>(
        `SELECT status, lease_owner FROM job_items WHERE ${held.map(() => '(job_id = ? AND idx = ?)').join(' OR ')}`,
        held.flatMap((h) => [h.job_id, h.idx]),
      );
    let takenAt: number | undefined;
    let pendingAtTakeover = -1;
    for (;;) {
      const rows = await heldNow();
      const waiting = await pending();
      if (takenAt === undefined && rows.some((r) => r.lease_owner === idB)) {
        takenAt = Date.now();
        pendingAtTakeover = waiting;
      }
      if (rows.every((r) => r.status === 'success')) {
        console.info(
          `takeover figures: ${held.length} item(s) held by the killed instance; taken over ${(((takenAt ?? Date.now()) - killedAt) / 1000).toFixed(1)} s after the kill, finished ${((Date.now() - killedAt) / 1000).toFixed(1)} s after it; ${pendingAtKill} pending at the kill, ${pendingAtTakeover} at the takeover, ${waiting} when they were done`,
        );
        // Finished by B while the backlog still waited: taken over first, not after every pending item.
        expect(rows.every((r) => r.lease_owner === idB)).toBe(true);
        expect(waiting).toBeGreaterThan(0);
        break;
      }
      if (Date.now() - killedAt > 300_000) throw new Error('the killed instance\'s items were not finished');
      await sleep(200);
    }
    expect(pendingAtTakeover).toBeGreaterThan(0);
    // Counted where an operator looks: B's own metrics.
    const metrics = await (await fetch(`${b!.url}/metrics`)).text();
    const counted = Number(/voxctl_lease_takeovers_total\{kind="batch_item"\} (\d+)/.exec(metrics)?.[1]);
    expect(counted).toBe(held.length);
    expect(metrics).toMatch(/voxctl_lease_takeovers_total\{kind="evaluation_synthesis"\} 0/);
    const takeovers = b!.lines().filter((l) => l.event === 'lease_takeover');
    expect(takeovers.reduce((n, l) => n + Number(l.count), 0)).toBe(held.length);
    for (const l of takeovers) expect(l.from).toEqual([idA]);
  }, 420_000);
});
