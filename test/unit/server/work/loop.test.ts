/**
 * The claim loop itself (src/server/work/loop.ts), with kinds written here: capacity, waking, start-up
 * recovery, the one failure policy, stop and drain. The leases are real: a real SQLite file, and for the
 * hand-back on stop the real `job_items` queue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../src/server/storage/db.js';
import { systemClock } from '../../../../src/server/clock.js';
import { DomainError } from '../../../../src/shared/errors.js';
import { createWorkLoop, type WorkLoop } from '../../../../src/server/work/loop.js';
import { describeFailure } from '../../../../src/server/work/failure.js';
import type { WorkContext, WorkFailure, WorkKind } from '../../../../src/server/work/kind.js';
import type { WorkSharing } from '../../../../src/server/work/leases.js';
import { claimItems } from '../../../../src/server/features/jobs/batch-items-work.js';
import { createUserWithKey } from '../../../../src/server/features/accounts/users.js';
import { enqueueJob } from '../../../../src/server/features/jobs/jobs.js';
import { listJobItems } from '../../../../src/server/features/jobs/repository.js';
import { fliteSpeaker } from '../../../helpers/audio-jobs.js';
import { soloWork } from '../../../helpers/work.js';

/** A kind over an in-memory queue that records what the loop asks of it; `perform` is the test's. */
function memoryKind(o: { capacity: number; perform: (id: string, ctx: WorkContext) => Promise<string>; complete?: (id: string) => Promise<void> }) {
  const queue: string[] = [];
  const log = { events: [] as string[], failures: new Map<string, WorkFailure>(), completed: [] as string[], settled: [] as string[], inFlight: 0, peak: 0 };
  const kind: WorkKind<string, string> = {
    table: 'job_items',
    capacity: o.capacity,
    failure: { code: 'synthesis_failed', prefix: 'Synthesis failed' },
    async recover() {
      log.events.push('recover');
    },
    async resume() {
      log.events.push('resume');
    },
    async claim(limit) {
      log.events.push(`claim ${limit}`);
      return queue.splice(0, limit);
    },
    async perform(id, ctx) {
      log.inFlight++;
      log.peak = Math.max(log.peak, log.inFlight);
      try {
        return await o.perform(id, ctx);
      } finally {
        log.inFlight--;
      }
    },
    async complete(id, output) {
      await o.complete?.(id);
      log.completed.push(`${id}=${output}`);
    },
    async fail(id, failure) {
      log.failures.set(id, failure);
    },
    async settle(id) {
      log.settled.push(id);
    },
  };
  return { kind, queue, log };
}

describe('the claim loop', () => {
  let dir: string;
  let db: Db;
  let loops: WorkLoop[];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxctl-loop-'));
    db = await openSqliteDatabase(join(dir, 'voxctl.db'));
    loops = [];
  });
  afterEach(async () => {
    for (const l of loops) await l.stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const loopOf = <C, O>(kind: WorkKind<C, O>, work: WorkSharing = soloWork(), errors: unknown[] = []) => {
    const loop = createWorkLoop(kind, { db, clock: systemClock, work, onError: (err) => errors.push(err) });
    loops.push(loop);
    return loop;
  };
  const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

  it('never has more than `capacity` claims in flight, claims only the free room, and settles each claim once', async () => {
    const m = memoryKind({ capacity: 3, perform: async (id) => (await tick(10), id.toUpperCase()) });
    m.queue.push(...Array.from({ length: 10 }, (_, i) => `c${i}`));
    const loop = loopOf(m.kind);
    await loop.start();
    await loop.idle();
    expect(m.log.peak).toBe(3);
    expect(m.log.completed).toHaveLength(10);
    expect(m.log.completed).toContain('c7=C7');
    expect([...m.log.settled].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`).sort());
    // Every claim asked for at most the room left.
    for (const e of m.log.events.filter((x) => x.startsWith('claim'))) expect(Number(e.split(' ')[1])).toBeLessThanOrEqual(3);
  });

  it('claims new work when woken (no polling alone on its data dir)', async () => {
    const m = memoryKind({ capacity: 2, perform: async (id) => id });
    const loop = loopOf(m.kind);
    await loop.start();
    await loop.idle();
    m.queue.push('late');
    await tick(50);
    expect(m.log.completed).toEqual([]);
    loop.wake();
    await loop.idle();
    expect(m.log.completed).toEqual(['late=late']);
  });

  it('recovers before the first claim when alone; leaves recovery to the leases when the queue is shared; resumes in both', async () => {
    const alone = memoryKind({ capacity: 1, perform: async (id) => id });
    await loopOf(alone.kind).start();
    expect(alone.log.events.slice(0, 3)).toEqual(['recover', 'resume', 'claim 1']);

    const shared = memoryKind({ capacity: 1, perform: async (id) => id });
    await loopOf(shared.kind, soloWork({ shared: true, pollMs: 60_000 })).start();
    expect(shared.log.events.slice(0, 2)).toEqual(['resume', 'claim 1']);

    // An API-only instance (--workers 0) recovers its data dir but claims nothing, even when woken.
    const apiOnly = memoryKind({ capacity: 1, perform: async (id) => id });
    apiOnly.queue.push('x');
    const loop = loopOf(apiOnly.kind, soloWork({ claims: false }));
    await loop.start();
    loop.wake();
    await loop.idle();
    expect(apiOnly.log.events).toEqual(['recover', 'resume']);
  });

  it('a start whose recovery fails rejects, and the next start recovers again', async () => {
    const m = memoryKind({ capacity: 1, perform: async (id) => id });
    let attempts = 0;
    m.kind.recover = async () => {
      if (++attempts === 1) throw new Error('database is locked');
    };
    m.queue.push('a');
    const loop = loopOf(m.kind);
    await expect(loop.start()).rejects.toThrow('database is locked');
    expect(m.log.completed).toEqual([]);
    await loop.start();
    await loop.idle();
    expect(attempts).toBe(2);
    expect(m.log.completed).toEqual(['a=a']);
  });

  it('one failure policy: a DomainError keeps its code and message; anything else is the kind failure, first line, 300 characters', async () => {
    const long = 'x'.repeat(400);
    const m = memoryKind({
      capacity: 4,
      perform: async (id) => {
        if (id === 'speaker') throw new DomainError('speaker_not_found', 'Speaker not found: spk_gone');
        if (id === 'engine') throw new Error('voice refused\n    at worker.js:12 (/srv/internal/path)');
        if (id === 'long') throw new Error(long);
        return 'ok';
      },
    });
    m.queue.push('speaker', 'engine', 'long', 'fine');
    const loop = loopOf(m.kind);
    await loop.start();
    await loop.idle();
    expect(m.log.failures.get('speaker')).toEqual({ code: 'speaker_not_found', message: 'Speaker not found: spk_gone' });
    expect(m.log.failures.get('engine')).toEqual({ code: 'synthesis_failed', message: 'Synthesis failed: voice refused' });
    expect(m.log.failures.get('long')!.message).toBe(`Synthesis failed: ${'x'.repeat(300)}`);
    expect(m.log.completed).toEqual(['fine=ok']);
    expect([...m.log.settled].sort()).toEqual(['engine', 'fine', 'long', 'speaker']);
    expect(describeFailure('plain string', { code: 'c', prefix: 'P' })).toEqual({ code: 'c', message: 'P: plain string' });
  });

  it('an error while committing is reported, never recorded as the claim failing', async () => {
    const errors: unknown[] = [];
    const m = memoryKind({
      capacity: 1,
      perform: async (id) => id,
      complete: async () => {
        throw new Error('disk I/O error');
      },
    });
    m.queue.push('a');
    const loop = loopOf(m.kind, soloWork(), errors);
    await loop.start();
    await loop.idle();
    expect(m.log.failures.size).toBe(0);
    expect(errors.map((e) => (e as Error).message)).toEqual(['disk I/O error']);
    expect(m.log.settled).toEqual(['a']);
  });

  it('stop aborts the claims in flight, waits for them, fails none, and hands their leases back to the queue', async () => {
    const userId = (await createUserWithKey(db, { email: 'loop@example.com', tier: 'pro', now: new Date() })).user.id;
    const speakerId = await fliteSpeaker(db);
    const job = await db.transaction(() =>
      enqueueJob(db, { userId, items: ['a.', 'b.', 'c.', 'd.', 'e.'].map((text) => ({ speakerId, text })), sampleRate: null, now: new Date() }),
    );
    const failed: string[] = [];
    const started: string[] = [];
    let drained = 0;
    const kind: WorkKind<{ job_id: string; idx: number }, void> = {
      table: 'job_items',
      capacity: 2,
      failure: { code: 'synthesis_failed', prefix: 'Synthesis failed' },
      recover: async () => undefined,
      claim: (limit, now, lease) => claimItems(db, limit, now, lease),
      async perform(item, ctx) {
        started.push(`${item.idx}`);
        // Work that only the stop ends: it rejects once the loop's signal aborts.
        await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => setTimeout(() => (drained++, reject(new Error('aborted'))), 20), { once: true }));
      },
      complete: async () => undefined,
      fail: async (item) => void failed.push(`${item.idx}`),
    };
    const loop = loopOf(kind);
    await loop.start();
    const leased = async () => Number(await db.value("SELECT count(*) FROM job_items WHERE status = 'processing' AND lease_owner IS NOT NULL"));
    while (started.length < 2) await tick();
    expect(await leased()).toBe(2);
    await loop.stop();
    // stop() resolved only after both claims ended; neither was failed; both are pending again, unleased.
    expect(drained).toBe(2);
    expect(failed).toEqual([]);
    expect((await listJobItems(db, job.id)).map((i) => i.status)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);
    expect(await db.value('SELECT count(*) FROM job_items WHERE lease_owner IS NOT NULL')).toBe(0);
    // A stopped loop claims nothing more, woken or not.
    loop.wake();
    await tick(30);
    expect(started).toHaveLength(2);
  });

  it('takes over at once the leases of an instance whose heartbeat is 30 s old, not waiting for them to expire (DESIGN §14.7), and says so', async () => {
    const userId = (await createUserWithKey(db, { email: 'takeover@example.com', tier: 'pro', now: new Date() })).user.id;
    const speakerId = await fliteSpeaker(db);
    const job = await db.transaction(() => enqueueJob(db, { userId, items: ['a.', 'b.', 'c.'].map((text) => ({ speakerId, text })), sampleRate: null, now: new Date() }));
    const now = Date.now();
    const inAnHour = new Date(now + 3_600_000).toISOString();
    // Items 0 and 1 leased for an hour: 0 by an instance that stopped beating 31 s ago, 1 by a live one.
    await db.run('INSERT INTO instances (id, host, pid, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)', [
      'inst_dead', 'h', 1, new Date(now - 600_000).toISOString(), new Date(now - 31_000).toISOString(),
      'inst_live', 'h', 2, new Date(now - 600_000).toISOString(), new Date(now - 1_000).toISOString(),
    ]);
    await db.run("UPDATE job_items SET status = 'processing', lease_owner = 'inst_dead', lease_expires_at = ? WHERE job_id = ? AND idx = 0", [inAnHour, job.id]);
    await db.run("UPDATE job_items SET status = 'processing', lease_owner = 'inst_live', lease_expires_at = ? WHERE job_id = ? AND idx = 1", [inAnHour, job.id]);
    const done: number[] = [];
    const events: { event: string; count: number; from?: string[] }[] = [];
    const kind: WorkKind<{ job_id: string; idx: number; lease_owner?: string | null }, void> = {
      table: 'job_items',
      capacity: 4,
      failure: { code: 'synthesis_failed', prefix: 'Synthesis failed' },
      recover: async () => undefined,
      claim: (limit, at, lease) => claimItems(db, limit, at, lease),
      previousOwner: (item) => item.lease_owner,
      perform: async (item) => void done.push(item.idx),
      complete: async () => undefined,
      fail: async () => undefined,
    };
    const loop = createWorkLoop(kind, { db, clock: systemClock, work: soloWork({ shared: true, pollMs: 20 }), onLease: (event, fields) => events.push({ event, ...fields }) });
    loops.push(loop);
    await loop.start();
    while (done.length < 2) await tick(10);
    await tick(50);
    // The pending item and the dead instance's; the live instance keeps its own.
    expect(done.sort()).toEqual([0, 2]);
    expect(events).toContainEqual({ event: 'lease_takeover', count: 1, from: ['inst_dead'] });
  });
});
