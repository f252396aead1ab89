import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../src/server/storage/db.js';
import { createUserWithKey } from '../../../../src/server/features/accounts/users.js';
import { enqueueJob } from '../../../../src/server/features/jobs/jobs.js';
import { billingPeriod, refundCharacters } from '../../../../src/server/features/limits/quota.js';
import { getCharactersUsed } from '../../../../src/server/features/limits/usage-repository.js';
import { getJob, listJobItems } from '../../../../src/server/features/jobs/repository.js';
import { createWorkLoop } from '../../../../src/server/work/loop.js';
import { batchItemsKind, claimItems, itemAudioId, type BatchItemsDeps } from '../../../../src/server/features/jobs/batch-items-work.js';
import { renderSpeech, speakerVoice } from '../../../../src/server/features/synthesis/synthesis.js';
import { createTtsPool } from '../../../../src/server/engines/tts/pool.js';
import type { TtsPool } from '../../../../src/server/engines/tts/types.js';
import { systemClock } from '../../../../src/server/clock.js';
import { fliteSpeaker } from '../../../helpers/audio-jobs.js';
import { TEST_LEASE, dataDirBlobs, soloWork } from '../../../helpers/work.js';

describe('batch items on the claim loop over the SQLite queue (real engines)', () => {
  let pool: TtsPool;
  let dir: string;
  let db: Db;
  let userId: string;
  let speaker: string;
  beforeAll(() => {
    pool = createTtsPool({ size: 2 });
  });
  afterAll(async () => pool.close());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxctl-runner-'));
    db = await openSqliteDatabase(join(dir, 'voxctl.db'));
    userId = (await createUserWithKey(db, { email: 'runner@example.com', tier: 'pro', now: new Date() })).user.id;
    speaker = await fliteSpeaker(db);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const used = () => getCharactersUsed(db, userId, billingPeriod(new Date()).start);
  const queue = (texts: string[]) =>
    db.transaction(() => enqueueJob(db, { userId, items: texts.map((text) => ({ speakerId: speaker, text })), sampleRate: null, now: new Date() }));
  const runner = (over: Partial<BatchItemsDeps> = {}) =>
    createWorkLoop(
      batchItemsKind({
        db,
        blobs: dataDirBlobs(dir),
        pendingBlobs: async () => [],
        clock: systemClock,
        capacity: 4,
        refund: refundCharacters,
        render: async (it) => renderSpeech(pool, { text: it.text, voice: await speakerVoice(db, it.speakerId), sampleRate: it.sampleRate }),
        ...over,
      }),
      { db, clock: systemClock, work: soloWork() },
    );

  it('processes queued items FIFO into one file each and completes the job', async () => {
    const job = await queue(['One.', 'Two.', 'Three.', 'Four.', 'Five.']);
    const r = runner();
    await r.start();
    await r.idle();
    const done = (await getJob(db, job.id))!;
    expect(done).toMatchObject({ status: 'completed', completed_items: 5, failed_items: 0 });
    const items = await listJobItems(db, job.id);
    expect(items.map((i) => i.audio_id)).toEqual(items.map((i) => itemAudioId(job.id, i.idx)));
    expect(readdirSync(join(dir, 'audio')).sort()).toEqual(items.map((i) => `${i.audio_id}.wav`).sort());
    await r.stop();
  });

  it('wakes on new work without polling and keeps at most `capacity` items in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const r = runner({
      capacity: 3,
      render: async (it) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        try {
          return await renderSpeech(pool, { text: it.text, voice: await speakerVoice(db, it.speakerId), sampleRate: null });
        } finally {
          inFlight--;
        }
      },
    });
    await r.start();
    const job = await queue(Array.from({ length: 8 }, (_, i) => `Sentence ${i}.`));
    expect((await getJob(db, job.id))!.status).toBe('pending');
    r.wake();
    await r.idle();
    expect((await getJob(db, job.id))!.status).toBe('completed');
    expect(peak).toBe(3);
    await r.stop();
  });

  it('fails an item whose synthesis fails, records why and refunds exactly its characters', async () => {
    const before = await used();
    const job = await queue(['Good one.', 'Bad one.', 'Another good.']);
    expect(await used()).toBe(before + 'Good one.Bad one.Another good.'.length);
    const r = runner({
      render: async (it) => {
        if (it.text.startsWith('Bad')) throw new Error('voice refused');
        return renderSpeech(pool, { text: it.text, voice: await speakerVoice(db, it.speakerId), sampleRate: null });
      },
    });
    await r.start();
    await r.idle();
    expect(await getJob(db, job.id)).toMatchObject({ status: 'partial', completed_items: 2, failed_items: 1 });
    expect((await listJobItems(db, job.id))[1]).toMatchObject({ status: 'failed', error: 'Synthesis failed: voice refused', audio_id: null });
    expect(await used()).toBe(before + 'Good one.Another good.'.length);
    await r.stop();
  });

  it('recovers after a crash: processing items requeued, debris removed, no item gets two files, no double charge', async () => {
    const job = await queue(['Alpha.', 'Beta.', 'Gamma.']);
    const charged = await used();
    // Simulate a crash: all three claimed; item 0's file renamed into place but its row never committed;
    // a temp file half written; a stray file nobody recorded.
    expect(await claimItems(db, 3, new Date(), TEST_LEASE)).toHaveLength(3);
    const audio = join(dir, 'audio');
    mkdirSync(audio, { recursive: true });
    writeFileSync(join(audio, `${itemAudioId(job.id, 0)}.wav`), 'stale');
    writeFileSync(join(audio, `.tmp-deadbeef-${itemAudioId(job.id, 1)}.wav`), 'partial');
    writeFileSync(join(audio, 'aud_strayfile0000.wav'), 'stray');

    const r = runner();
    await r.start();
    await r.idle();
    expect(await getJob(db, job.id)).toMatchObject({ status: 'completed', completed_items: 3 });
    const files = readdirSync(audio).sort();
    expect(files).toEqual([0, 1, 2].map((i) => `${itemAudioId(job.id, i)}.wav`).sort());
    expect(existsSync(join(audio, 'aud_strayfile0000.wav'))).toBe(false);
    expect(await used()).toBe(charged);
    await r.stop();
  });

  it('stop() hands unfinished items back to the queue for the next start instead of failing them', async () => {
    const job = await queue(Array.from({ length: 6 }, (_, i) => `Stopping sentence number ${i}.`));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const r = runner({
      capacity: 2,
      render: async (it) => {
        await gate;
        throw new Error(`pool closed before ${it.text}`);
      },
    });
    await r.start();
    const stopping = r.stop();
    release();
    await stopping;
    const statuses = (await listJobItems(db, job.id)).map((i) => i.status);
    expect(statuses.filter((s) => s === 'failed')).toHaveLength(0);
    // The two it had claimed are pending again, their leases released.
    expect(statuses.filter((s) => s === 'pending')).toHaveLength(6);
    expect(await db.value("SELECT count(*) FROM job_items WHERE lease_owner IS NOT NULL AND status = 'pending'")).toBe(0);
    const next = runner();
    await next.start();
    await next.idle();
    expect(await getJob(db, job.id)).toMatchObject({ status: 'completed', completed_items: 6 });
    await next.stop();
  });
});
