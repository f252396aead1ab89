// Bounds of streams (DESIGN §17.5) over real loopback HTTP: a vendor that never stops sending partials is
// ended by the stream's deadline (here and in streaming evaluations), a user's fifth open stream is a 429
// while the other four go on, and a vendor message over 4 MB ends that vendor's stream.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { encodeWav } from '../../src/server/audio/wav.js';
import { STREAM_LIMITS } from '../../src/server/engines/stt/streaming/bounds.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { fakeProvidersConfig, pollEvaluation } from '../helpers/evaluations.js';
import { startFakeDeepgramLive, type FakeStreamingVendor } from '../helpers/fake-stt-streaming.js';
import { toneBurst } from '../helpers/streaming-audio.js';

let s: TestServer;
let dg: FakeStreamingVendor;
let chatty: FakeStreamingVendor;
let huge: FakeStreamingVendor;
let dir: string;
let audioUrl: string;
const auth = () => ({ authorization: `Bearer ${s.key}`, 'content-type': 'application/json' });
// 1.5 s: speech (a tone) from 200 to 1200 ms.
const audio = toneBurst({ leadMs: 200, speechMs: 1000, tailMs: 300 });
/** A deadline of max(1, 2 × 1.5 s ÷ 1) + 2 = 5 s for the 1.5 s audio at pace 1 (production: 40 s). */
const SHORT_DEADLINE = { minSeconds: 1, perAudioSecond: 2, graceSeconds: 2 };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- NDJSON events are asserted field by field
const lines = (text: string): any[] => text.trim().split('\n').map((l) => JSON.parse(l));
const open = (providers: string[]) => fetch(`${s.url}/v1/stt/stream`, { method: 'POST', headers: auth(), body: JSON.stringify({ audio_url: audioUrl, providers, pace: 1 }) });

beforeAll(async () => {
  dg = await startFakeDeepgramLive({
    script: [
      { afterAudioMs: 500, delayMs: 100, kind: 'partial', text: 'please' },
      { afterAudioMs: 1200, delayMs: 150, kind: 'final', text: 'Please call me.' },
    ],
  });
  chatty = await startFakeDeepgramLive({ mode: 'partials-forever' });
  huge = await startFakeDeepgramLive({ mode: 'huge-message', script: [{ afterAudioMs: 1200, delayMs: 50, kind: 'final', text: 'Please call me.' }] });
  dir = mkdtempSync(join(tmpdir(), 'voxctl-stream-bounds-'));
  const configPath = fakeProvidersConfig(dir, {
    'stt-b': { adapter: 'deepgram', model: 'nova-3', fake: dg },
    'stt-e': { adapter: 'deepgram', model: 'nova-3', fake: chatty },
    'stt-f': { adapter: 'deepgram', model: 'nova-3', fake: huge },
  });
  s = await startTestServer({ options: { configPath } });
  const form = new FormData();
  form.append('file', new Blob([encodeWav(audio.pcm, audio.sampleRate)]), 'burst.wav');
  const up = await fetch(`${s.url}/v1/audio`, { method: 'POST', headers: { authorization: `Bearer ${s.key}` }, body: form });
  expect(up.status).toBe(201);
  audioUrl = ((await up.json()) as { audio_url: string }).audio_url;
});

afterAll(async () => {
  await s?.close();
  await dg?.close();
  await chatty?.close();
  await huge?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /v1/stt/stream within DESIGN §17.5 bounds', () => {
  test('a vendor sending partials forever is ended by the deadline: its result is a timeout, the others are unaffected', async () => {
    s.runtime.streamLimits.deadline = { ...SHORT_DEADLINE };
    try {
      const res = await open(['stt-b', 'stt-e']);
      expect(res.status).toBe(200);
      const events = lines(await res.text());
      const done = events.at(-1);
      expect(done.event).toBe('done');
      expect(done.results['stt-e']).toMatchObject({ transcript: null, error: { code: 'timeout', message: 'The stream did not end within its deadline of 5 s' } });
      expect(done.results['stt-b']).toMatchObject({ transcript: 'Please call me.' });
      expect(done.results['stt-b'].error).toBeUndefined();
      // The vendor did talk all along (the stall timer alone never fired) and its socket was closed.
      expect(events.filter((e) => e.provider === 'stt-e' && e.event === 'partial').length).toBeGreaterThan(20);
      await expect.poll(() => chatty.streams.at(-1)?.closedWith).toBeDefined();
    } finally {
      s.runtime.streamLimits.deadline = { ...STREAM_LIMITS.deadline };
    }
  }, 30_000);

  test("a user's fifth open stream is 429 'Too many open streams' (with Retry-After) while the other four finish", async () => {
    s.runtime.streamLimits.deadline = { ...SHORT_DEADLINE };
    try {
      // Four streams that last until the deadline: open for sure when the fifth arrives.
      const four = await Promise.all([0, 1, 2, 3].map(() => open(['stt-e'])));
      expect(four.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const fifth = await open(['stt-b']);
      expect(fifth.status).toBe(429);
      expect(fifth.headers.get('retry-after')).toBe('5');
      // The error shape of the API's other 429s.
      expect(await fifth.json()).toEqual({ detail: 'Too many open streams', status_code: 429, request_id: fifth.headers.get('x-request-id'), code: 'rate_limited' });
      // The four keep working: partials all along, then each one's own result.
      for (const r of four) {
        const events = lines(await r.text());
        expect(events.filter((e) => e.event === 'partial').length).toBeGreaterThan(20);
        expect(events.at(-1)).toMatchObject({ event: 'done', results: { 'stt-e': { error: { code: 'timeout' } } } });
      }
      // Their slots are free again.
      const next = await open(['stt-b']);
      expect(next.status).toBe(200);
      expect(lines(await next.text()).at(-1)).toMatchObject({ event: 'done', results: { 'stt-b': { transcript: 'Please call me.' } } });
    } finally {
      s.runtime.streamLimits.deadline = { ...STREAM_LIMITS.deadline };
    }
  }, 30_000);

  test('a 5 MB vendor message ends that vendor stream with upstream_error', async () => {
    const res = await open(['stt-f', 'stt-b']);
    expect(res.status).toBe(200);
    const done = lines(await res.text()).at(-1);
    expect(done.results['stt-f']).toMatchObject({ transcript: null, error: { code: 'upstream_error', message: 'Deepgram sent a message over 4 MB' } });
    expect(done.results['stt-b']).toMatchObject({ transcript: 'Please call me.' });
    await expect.poll(() => huge.streams.at(-1)?.closedWith).toBeDefined();
  }, 30_000);
});

describe('streaming evaluations within the same deadline', () => {
  test("an utterance whose vendor sends partials forever ends with the stream's deadline (timeout)", async () => {
    await promoteToEnterprise(s);
    const flite = await fliteSpeaker(s.runtime.db);
    s.runtime.streamLimits.deadline = { ...SHORT_DEADLINE };
    try {
      const created = await call(s, 'POST', '/v1/evaluations', {
        key: s.key,
        json: { texts: ['Please call me back.'], speakers: { ids: [flite] }, providers: ['stt-e'], mode: 'streaming' },
      });
      expect(created.status, created.text).toBe(201);
      const ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 60_000 });
      expect(ev.status).toBe('completed');
      const utterance = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances?provider=stt-e`, { key: s.key })).body.items[0];
      expect(utterance.error).toMatchObject({ code: 'timeout' });
      expect(utterance.error.message).toMatch(/deadline/);
    } finally {
      s.runtime.streamLimits.deadline = { ...STREAM_LIMITS.deadline };
    }
  }, 90_000);
});
