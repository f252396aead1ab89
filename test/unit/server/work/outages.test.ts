/**
 * DESIGN §14.10 and §14.11 on the claim loop, over a real SQLite queue: the database away is no failure of
 * an item (it runs again when the database answers); a database error with the database reachable fails
 * the item at once with `internal error (request …)`, the cause only in the `work_item_failed` line of that
 * id; a dead instance's items are claimed before pending ones, and not at all while the instance may not
 * judge its peers.
 */
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../src/server/storage/db.js';
import { systemClock } from '../../../../src/server/clock.js';
import type { Logger } from '../../../../src/server/logger.js';
import { createUserWithKey } from '../../../../src/server/features/accounts/users.js';
import { enqueueJob } from '../../../../src/server/features/jobs/jobs.js';
import { billingPeriod } from '../../../../src/server/features/limits/quota.js';
import { getCharactersUsed } from '../../../../src/server/features/limits/usage-repository.js';
import { getJob, listJobItems } from '../../../../src/server/features/jobs/repository.js';
import { createWorkLoop } from '../../../../src/server/work/loop.js';
import { createBatchRunner } from '../../../../src/server/work-kinds.js';
import { claimItems } from '../../../../src/server/features/jobs/batch-items-work.js';
import type { WorkKind } from '../../../../src/server/work/kind.js';
import { createTtsPool } from '../../../../src/server/engines/tts/pool.js';
import type { TtsPool } from '../../../../src/server/engines/tts/types.js';
import { createMetrics } from '../../../../src/server/features/ops/metrics.js';
import { fliteSpeaker } from '../../../helpers/audio-jobs.js';
import { TEST_LEASE, dataDirBlobs, soloWork } from '../../../helpers/work.js';

describe('outages and takeovers on the claim loop', () => {
  let pool: TtsPool;
  let dir: string;
  let db: Db;
  let userId: string;
  let speaker: string;
  beforeAll(() => {
    pool = createTtsPool({ size: 1 });
  });
  afterAll(async () => pool.close());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxctl-outages-'));
    db = await openSqliteDatabase(join(dir, 'voxctl.db'));
    userId = (await createUserWithKey(db, { email: 'outage@example.com', tier: 'pro', now: new Date() })).user.id;
    speaker = await fliteSpeaker(db);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const queue = (texts: string[]) =>
    db.transaction(() => enqueueJob(db, { userId, items: texts.map((text) => ({ speakerId: speaker, text })), sampleRate: null, now: new Date() }));
  const used = () => getCharactersUsed(db, userId, billingPeriod(new Date()).start);

  it('runs an item again once the database answers when its write found the database away: never failed, done once', async () => {
    const job = await queue(['First.', 'Second.']);
    const charged = await used();
    const runs: number[] = [];
    const kind: WorkKind<{ job_id: string; idx: number }, void> = {
      table: 'job_items',
      capacity: 2,
      failure: { code: 'synthesis_failed', prefix: 'Synthesis failed' },
      recover: async () => undefined,
      claim: (limit, now, lease) => claimItems(db, limit, now, lease),
      async perform(item) {
        runs.push(item.idx);
        // The first write of item 1 meets a stopped PostgreSQL.
        if (item.idx === 1 && runs.filter((i) => i === 1).length === 1) {
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        }
      },
      complete: async (item) => {
        await db.run("UPDATE job_items SET status = 'success' WHERE job_id = ? AND idx = ?", [item.job_id, item.idx]);
      },
      fail: async (item, failure) => {
        await db.run("UPDATE job_items SET status = 'failed', error = ? WHERE job_id = ? AND idx = ?", [failure.message, item.job_id, item.idx]);
      },
    };
    const errors: unknown[] = [];
    const outcomes: string[] = [];
    const loop = createWorkLoop(kind, { db, clock: systemClock, work: soloWork(), onError: (err) => errors.push(err), onOutcome: (o) => outcomes.push(o) });
    await loop.start();
    await loop.idle();
    await loop.stop();
    expect((await listJobItems(db, job.id)).map((i) => [i.status, i.error])).toEqual([
      ['success', null],
      ['success', null],
    ]);
    expect(runs.sort()).toEqual([0, 1, 1]);
    expect(outcomes.sort()).toEqual(['retried', 'succeeded', 'succeeded']);
    // Reported (so the outage is said once), never recorded on the item, never refunded.
    expect(errors.map((e) => (e as Error).message)).toEqual(['connect ECONNREFUSED 127.0.0.1:5432']);
    expect(await used()).toBe(charged);
  });

  it('fails an item at once on a database error with the database reachable: internal error (request id), the cause in one work_item_failed line', async () => {
    const job = await queue(['Recorded fine.', 'Meets a constraint.']);
    const before = await used();
    // A constraint violation while recording item 1's audio, the database answering all along.
    await db.exec(`CREATE TRIGGER audio_refused BEFORE INSERT ON audio WHEN NEW.id LIKE '%\\_1' ESCAPE '\\'
      BEGIN SELECT RAISE(ABORT, 'duplicate key value violates unique constraint "audio_blob_retired_pkey"'); END`);
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink) as unknown as Logger;
    const metrics = createMetrics({ db });
    const runner = createBatchRunner({ db, blobs: dataDirBlobs(dir), clock: systemClock, ttsWorkers: 1, tts: () => pool, logger, work: soloWork(), metrics });
    await runner.start();
    await runner.idle();
    await runner.stop();
    expect(await getJob(db, job.id)).toMatchObject({ status: 'partial', completed_items: 1, failed_items: 1 });
    const item = (await listJobItems(db, job.id))[1]!;
    expect(item.status).toBe('failed');
    expect(item.error).toMatch(/^Synthesis failed: internal error \(request req_[0-9a-f]{32}\)$/);
    expect(item.error).not.toMatch(/constraint|duplicate|audio/);
    const failed = lines.filter((l) => l.event === 'work_item_failed');
    expect(failed).toHaveLength(1);
    expect(item.error).toBe(`Synthesis failed: internal error (request ${failed[0]!.request_id as string})`);
    expect(failed[0]).toMatchObject({ job_id: job.id, index: 1, err: { message: expect.stringContaining('audio_blob_retired_pkey') } });
    // Failed items are refunded: only the first item's characters stay charged.
    expect(before - (await used())).toBe('Meets a constraint.'.length);
    expect(await metrics.render()).toMatch(/voxctl_work_items_total\{kind="batch_item",outcome="failed"\} 1/);
  });

  it("claims a dead instance's items before pending ones, and only pending ones while it may not judge its peers", async () => {
    const job = await queue(['a.', 'b.', 'c.', 'd.']);
    const now = Date.now();
    await db.run('INSERT INTO instances (id, host, pid, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?)', [
      'inst_dead', 'h', 1, new Date(now - 600_000).toISOString(), new Date(now - 31_000).toISOString(),
    ]);
    // Item 3, the last in the queue, is held for an hour by an instance silent for 31 s.
    await db.run("UPDATE job_items SET status = 'processing', lease_owner = 'inst_dead', lease_expires_at = ? WHERE job_id = ? AND idx = 3", [
      new Date(now + 3_600_000).toISOString(),
      job.id,
    ]);
    // Just back from an outage: pending items only, the dead instance's item left alone.
    const cautious = await claimItems(db, 1, new Date(), TEST_LEASE, { takeover: false });
    expect(cautious.map((i) => i.idx)).toEqual([0]);
    // Judging again: the dead instance's item first, whatever waits before it in the queue.
    const first = await claimItems(db, 2, new Date(), TEST_LEASE);
    expect(first.map((i) => [i.idx, i.lease_owner])).toEqual([
      [3, 'inst_dead'],
      [1, null],
    ]);
  });

  it("takes over at once what an instance held after its row was forgotten, never the claimer's own (DESIGN §14.7)", async () => {
    const job = await queue(['a.', 'b.', 'c.']);
    const hour = new Date(Date.now() + 3_600_000).toISOString();
    // Item 2 held for an hour by an instance whose row a peer's sweep has removed; item 1 by the claimer.
    await db.run("UPDATE job_items SET status = 'processing', lease_owner = 'inst_forgotten', lease_expires_at = ? WHERE job_id = ? AND idx = 2", [hour, job.id]);
    await db.run("UPDATE job_items SET status = 'processing', lease_owner = ?, lease_expires_at = ? WHERE job_id = ? AND idx = 1", [TEST_LEASE.owner, hour, job.id]);
    const claimed = await claimItems(db, 3, new Date(), TEST_LEASE);
    expect(claimed.map((i) => [i.idx, i.lease_owner])).toEqual([
      [2, 'inst_forgotten'],
      [0, null],
    ]);
    // While it may not judge its peers, nothing of theirs.
    await db.run("UPDATE job_items SET status = 'processing', lease_owner = 'inst_forgotten' WHERE job_id = ? AND idx = 2", [job.id]);
    expect(await claimItems(db, 3, new Date(), TEST_LEASE, { takeover: false })).toEqual([]);
  });

  it('counts takeovers in voxctl_lease_takeovers_total{kind}, exported at 0 from start', async () => {
    const metrics = createMetrics({ db });
    const text = await metrics.render();
    expect(text).toMatch(/voxctl_lease_takeovers_total\{kind="batch_item"\} 0/);
    expect(text).toMatch(/voxctl_lease_takeovers_total\{kind="evaluation_synthesis"\} 0/);
    metrics.leaseTakeovers('batch_item', 3);
    expect(await metrics.render()).toMatch(/voxctl_lease_takeovers_total\{kind="batch_item"\} 3/);
  });
});
