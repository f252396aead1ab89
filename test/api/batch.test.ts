import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, fetchAudio, fliteSpeaker, pollJob, rms, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { decodeWavToPcm16, parseWav } from '../../src/server/audio/wav.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { updateUserSubscription } from '../../src/server/features/accounts/users-repository.js';
import type { TtsPool } from '../../src/server/engines/tts/types.js';

describe('POST /v1/tts/batch', () => {
  let server: TestServer;
  let speaker: string;
  beforeAll(async () => {
    server = await startTestServer();
    await promoteToEnterprise(server);
    speaker = await fliteSpeaker(server.runtime.db);
  });
  afterAll(async () => server.close());

  const batch = (items: unknown[], headers: Record<string, string> = {}, key = server.key) =>
    call(server, 'POST', '/v1/tts/batch', { key, json: { items }, headers });

  /** Replaces the pool with one that fails every text containing `marker` and delegates the rest. */
  function failingOn(marker: string): () => void {
    const real = server.runtime.tts!;
    const wrapper: TtsPool = {
      synthesize: (text, voice) => (text.includes(marker) ? Promise.reject(new Error('engine refused this text')) : real.synthesize(text, voice)),
      status: () => real.status(),
      close: () => real.close(),
    };
    server.runtime.tts = wrapper;
    return () => {
      server.runtime.tts = real;
    };
  }

  it('validates every item before storing anything, with the exact messages', async () => {
    const before = await call(server, 'GET', '/v1/jobs', { key: server.key });
    const used = await charactersUsed(server);
    const cases: [unknown[], number, string][] = [
      [[], 400, 'Batch must contain at least one item'],
      [Array.from({ length: 101 }, () => ({ speaker_id: speaker, text: 'hi' })), 400, 'Batch exceeds maximum of 100 items'],
      [[{ speaker_id: speaker, text: 'ok' }, { speaker_id: speaker, text: '   ' }], 400, 'Item 1: Text must not be empty'],
      [[{ speaker_id: speaker, text: 'x'.repeat(2001) }], 400, 'Item 0: Text exceeds maximum length of 2000 characters'],
      [[{ speaker_id: speaker, text: 'ok' }, { speaker_id: 'spk_nobody', text: 'ok' }], 404, 'Speaker not found: spk_nobody'],
    ];
    for (const [items, status, detail] of cases) {
      const res = await batch(items);
      expect(res.status, detail).toBe(status);
      expect(res.body).toMatchObject({ detail, status_code: status });
    }
    const wrongType = await batch([{ speaker_id: speaker, text: 42 }]);
    expect(wrongType.status).toBe(400);
    const after = await call(server, 'GET', '/v1/jobs', { key: server.key });
    expect(after.body.total).toBe(before.body.total);
    expect(await charactersUsed(server)).toBe(used);
  });

  it('runs a batch to completed with results in index order and real WAVs', async () => {
    const texts = ['The first sentence.', 'Second item here.', 'Number three is last.'];
    const used = await charactersUsed(server);
    const res = await batch(texts.map((text) => ({ speaker_id: speaker, text })));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', total_items: 3 });
    expect(res.body.job_id).toMatch(/^job_/);
    expect(await charactersUsed(server)).toBe(used + texts.join('').length);

    const { final, seen } = await pollJob(server, res.body.job_id);
    expect(final).toMatchObject({ status: 'completed', progress: 100, completed_items: 3, failed_items: 0, total_items: 3 });
    expect(final.completed_at).toBeTypeOf('string');
    expect(final.started_at).toBeTypeOf('string');
    for (const s of seen) if (s.status !== 'completed' && s.status !== 'partial') expect(s.results).toBeUndefined();
    expect(final.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2]);
    for (const r of final.results) {
      expect(r).toMatchObject({ status: 'success', speaker_id: speaker });
      const audio = await fetchAudio(r.audio_url);
      expect(audio.status).toBe(200);
      const info = parseWav(audio.bytes);
      expect(info.channels).toBe(1);
      expect(Math.round(info.durationSeconds * 1000) / 1000).toBe(r.duration_seconds);
      expect(rms(decodeWavToPcm16(audio.bytes).pcm)).toBeGreaterThan(100);
    }
    expect(await charactersUsed(server)).toBe(used + texts.join('').length);
  });

  it('resamples batch items to sample_rate', async () => {
    const res = await call(server, 'POST', '/v1/tts/batch', {
      key: server.key,
      json: { items: [{ speaker_id: speaker, text: 'Resampled speech.' }], sample_rate: 16000 },
    });
    expect(res.status).toBe(201);
    const { final } = await pollJob(server, res.body.job_id);
    const audio = await fetchAudio(final.results[0].audio_url);
    expect(parseWav(audio.bytes).sampleRate).toBe(16000);
  });

  it('ends partial when one item fails: error recorded, its characters refunded, progress monotonic', async () => {
    const restore = failingOn('BROKEN');
    try {
      const items = Array.from({ length: 6 }, (_, i) => ({ speaker_id: speaker, text: i === 2 ? 'This BROKEN one.' : `Sentence number ${i}.` }));
      const used = await charactersUsed(server);
      const res = await batch(items);
      expect(res.status).toBe(201);
      const { final, seen } = await pollJob(server, res.body.job_id, { intervalMs: 20 });
      expect(final).toMatchObject({ status: 'partial', progress: 100, completed_items: 5, failed_items: 1 });
      expect(final.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(final.results[2]).toEqual({ index: 2, speaker_id: speaker, status: 'failed', error: expect.stringContaining('engine refused') });
      expect(final.results[2].audio_url).toBeUndefined();
      const progress = seen.map((s) => s.progress as number);
      expect([...progress].sort((a, b) => a - b)).toEqual(progress);
      const charged = items.filter((_, i) => i !== 2).reduce((n, it) => n + it.text.length, 0);
      expect(await charactersUsed(server)).toBe(used + charged);
    } finally {
      restore();
    }
  });

  it('ends failed when every item fails, without results, refunding everything', async () => {
    const restore = failingOn('BROKEN');
    try {
      const used = await charactersUsed(server);
      const res = await batch([
        { speaker_id: speaker, text: 'BROKEN a' },
        { speaker_id: speaker, text: 'BROKEN b' },
      ]);
      const { final } = await pollJob(server, res.body.job_id);
      expect(final).toMatchObject({ status: 'failed', progress: 100, completed_items: 0, failed_items: 2 });
      expect(final.results).toBeUndefined();
      expect(await charactersUsed(server)).toBe(used);
    } finally {
      restore();
    }
  });

  it('answers 429 and stores nothing when the quota cannot hold all items', async () => {
    const { key } = await createUserWithKey(server.runtime.db, { email: 'free@example.com', tier: 'free', now: new Date() });
    const items = Array.from({ length: 100 }, () => ({ speaker_id: speaker, text: 'y'.repeat(101) }));
    const res = await batch(items, {}, key.key);
    expect(res.status).toBe(429);
    expect(res.body.detail).toBe('Character quota exceeded for this billing period');
    expect((await call(server, 'GET', '/v1/jobs', { key: key.key })).body.total).toBe(0);
    expect(await charactersUsed(server, key.key)).toBe(0);
  });

  it('answers 403 for a cancelled subscription', async () => {
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'gone@example.com', tier: 'pro', now: new Date() });
    await updateUserSubscription(server.runtime.db, user.id, { status: 'cancelled', cancelAtPeriodEnd: false });
    const res = await batch([{ speaker_id: speaker, text: 'hello' }], {}, key.key);
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe('Subscription is cancelled');
  });

  it('honours Idempotency-Key: same body → same job, charged once; different body → 422', async () => {
    const used = await charactersUsed(server);
    const items = [{ speaker_id: speaker, text: 'Idempotent text.' }];
    const first = await batch(items, { 'Idempotency-Key': 'key-1' });
    const second = await batch(items, { 'Idempotency-Key': 'key-1' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(await charactersUsed(server)).toBe(used + 'Idempotent text.'.length);
    const other = await batch([{ speaker_id: speaker, text: 'Another text.' }], { 'Idempotency-Key': 'key-1' });
    expect(other.status).toBe(422);
    expect(other.body.detail).toBe('Idempotency-Key reused with a different request');
    const tooLong = await batch(items, { 'Idempotency-Key': 'k'.repeat(256) });
    expect(tooLong.status).toBe(400);
    const ok255 = await batch(items, { 'Idempotency-Key': 'k'.repeat(255) });
    expect(ok255.status).toBe(201);
    expect(ok255.body.job_id).not.toBe(first.body.job_id);
    await pollJob(server, first.body.job_id);
    await pollJob(server, ok255.body.job_id);
  });

  it('concurrent identical idempotent requests create a single job', async () => {
    const items = [{ speaker_id: speaker, text: 'Race me.' }];
    const replies = await Promise.all(Array.from({ length: 5 }, () => batch(items, { 'Idempotency-Key': 'race' })));
    expect(new Set(replies.map((r) => r.body.job_id)).size).toBe(1);
    await pollJob(server, replies[0]!.body.job_id);
  });
});
