import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, espeakSpeaker, fetchAudio, fliteSpeaker, rms, sphinxWer, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { decodeWavToPcm16, parseWav } from '../../src/server/audio/wav.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { updateUserSubscription } from '../../src/server/features/accounts/users-repository.js';
import { addCharactersUsed } from '../../src/server/features/limits/usage-repository.js';
import { billingPeriod } from '../../src/server/features/limits/quota.js';
import type { TtsPool } from '../../src/server/engines/tts/types.js';

describe('POST /v1/tts/synthesize', () => {
  let server: TestServer;
  let slt: string;
  beforeAll(async () => {
    server = await startTestServer();
    await promoteToEnterprise(server);
    slt = await fliteSpeaker(server.runtime.db, 'slt');
  });
  afterAll(async () => server.close());

  const synth = (json: unknown, key = server.key) => call(server, 'POST', '/v1/tts/synthesize', { key, json });

  it('round trip: real speech that PocketSphinx understands (WER < 0.25)', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    const res = await synth({ speaker_id: slt, text });
    expect(res.status).toBe(200);
    expect(res.body.characters_used).toBe(text.length);
    expect(res.body.audio_url).toMatch(new RegExp(`^${server.url}/v1/audio/aud_[A-Za-z0-9_-]+\\.wav\\?expires=\\d+&sig=`));
    const audio = await fetchAudio(res.body.audio_url);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/wav');
    expect(Number(audio.headers.get('content-length'))).toBe(audio.bytes.length);
    const info = parseWav(audio.bytes);
    expect(info).toMatchObject({ channels: 1, bitsPerSample: 16, format: 'pcm' });
    expect(Math.round((info.frames / info.sampleRate) * 1000) / 1000).toBe(res.body.duration_seconds);
    expect(res.body.duration_seconds).toBeGreaterThan(1);
    expect(rms(decodeWavToPcm16(audio.bytes).pcm)).toBeGreaterThan(300);
    const { wer, hypothesis } = await sphinxWer(audio.bytes, text);
    expect(wer, `sphinx heard: ${hypothesis}`).toBeLessThan(0.25);
  });

  it('counts characters as code points and resamples to sample_rate', async () => {
    const text = 'Hello 😀 world';
    const res = await synth({ speaker_id: slt, text, sample_rate: 8000 });
    expect(res.status).toBe(200);
    expect(res.body.characters_used).toBe([...text].length);
    const info = parseWav((await fetchAudio(res.body.audio_url)).bytes);
    expect(info.sampleRate).toBe(8000);
    expect(Math.round((info.frames / 8000) * 1000) / 1000).toBe(res.body.duration_seconds);
  });

  it('synthesises with eSpeak-bound speakers too, and different speakers sound different', async () => {
    const es = await espeakSpeaker(server.runtime.db);
    const a = await synth({ speaker_id: es, text: 'Good morning everyone.' });
    const b = await synth({ speaker_id: slt, text: 'Good morning everyone.' });
    expect(a.status).toBe(200);
    const wa = (await fetchAudio(a.body.audio_url)).bytes;
    const wb = (await fetchAudio(b.body.audio_url)).bytes;
    expect(rms(decodeWavToPcm16(wa).pcm)).toBeGreaterThan(100);
    expect(wa.equals(wb)).toBe(false);
  });

  it('rejects bad input with the spec messages and charges nothing', async () => {
    const used = await charactersUsed(server);
    const cases: [unknown, number, string][] = [
      [{ speaker_id: slt, text: '  \n ' }, 400, 'Text must not be empty'],
      [{ speaker_id: slt, text: 'a'.repeat(2001) }, 400, 'Text exceeds maximum length of 2000 characters'],
      [{ speaker_id: slt, text: '😀'.repeat(2001) }, 400, 'Text exceeds maximum length of 2000 characters'],
      [{ speaker_id: 'spk_missing', text: 'hello' }, 404, 'Speaker not found'],
    ];
    for (const [body, status, detail] of cases) {
      const res = await synth(body);
      expect(res.status).toBe(status);
      expect(res.body.detail).toBe(detail);
    }
    for (const body of [{ speaker_id: slt }, { speaker_id: slt, text: 5 }, { speaker_id: slt, text: 'x', sample_rate: 44100 }, { speaker_id: slt, text: 'x', sample_rate: '16000' }]) {
      expect((await synth(body)).status).toBe(400);
    }
    expect((await call(server, 'POST', '/v1/tts/synthesize', { json: { speaker_id: slt, text: 'x' } })).status).toBe(401);
    expect(await charactersUsed(server)).toBe(used);
  });

  it('accepts exactly 2000 code points', async () => {
    const text = ('Speech synthesis works. ').repeat(84).slice(0, 2000);
    const res = await synth({ speaker_id: slt, text });
    expect(res.status).toBe(200);
    expect(res.body.characters_used).toBe(2000);
  }, 120_000);

  it('answers 403 for a cancelled subscription', async () => {
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'cancelled@example.com', now: new Date() });
    await updateUserSubscription(server.runtime.db, user.id, { status: 'cancelled', cancelAtPeriodEnd: false });
    const res = await synth({ speaker_id: slt, text: 'hello' }, key.key);
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe('Subscription is cancelled');
  });

  it('20 concurrent requests near the quota never overshoot it', async () => {
    // Starter: 100,000 characters and 60 requests/min (free's 20/min would rate-limit the test itself).
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'near@example.com', tier: 'starter', now: new Date() });
    // 99,950 already used leaves room for exactly 5 requests of 10.
    await addCharactersUsed(server.runtime.db, user.id, billingPeriod(new Date()).start, 99_950);
    const replies = await Promise.all(Array.from({ length: 20 }, () => synth({ speaker_id: slt, text: 'Ten chars.' }, key.key)));
    const ok = replies.filter((r) => r.status === 200).length;
    const limited = replies.filter((r) => r.status === 429);
    expect(ok).toBe(5);
    expect(limited).toHaveLength(15);
    for (const r of limited) expect(r.body.detail).toBe('Character quota exceeded for this billing period');
    expect(await charactersUsed(server, key.key)).toBe(100_000);
  });

  it('refunds the reservation when synthesis fails', async () => {
    const real = server.runtime.tts!;
    const broken: TtsPool = { synthesize: () => Promise.reject(new Error('engine crashed')), status: () => 'ok', close: () => real.close() };
    server.runtime.tts = broken;
    try {
      const used = await charactersUsed(server);
      const res = await synth({ speaker_id: slt, text: 'This will fail.' });
      expect(res.status).toBe(500);
      expect(res.body.detail).toBe('Speech synthesis failed');
      expect(await charactersUsed(server)).toBe(used);
    } finally {
      server.runtime.tts = real;
    }
  });
});
