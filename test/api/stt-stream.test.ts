// POST /v1/stt/stream over real loopback HTTP (DESIGN §13): provider checks, NDJSON events, and latency
// figures measured against a Deepgram live fake answering at known delays.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { encodeWav } from '../../src/server/audio/wav.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeDeepgramLive, type FakeStreamingVendor } from '../helpers/fake-stt-streaming.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { toneBurst } from '../helpers/streaming-audio.js';

let s: TestServer;
let dg: FakeStreamingVendor;
let openai: FakeVendor;
let audioUrl: string;
const auth = () => ({ authorization: `Bearer ${s.key}`, 'content-type': 'application/json' });
// 1.5 s: speech (a tone) from 200 to 1200 ms.
const audio = toneBurst({ leadMs: 200, speechMs: 1000, tailMs: 300 });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- NDJSON events are asserted field by field
async function stream(body: unknown): Promise<{ status: number; events: any[]; text: string; type: string | null }> {
  const res = await fetch(`${s.url}/v1/stt/stream`, { method: 'POST', headers: auth(), body: JSON.stringify(body) });
  const text = await res.text();
  const type = res.headers.get('content-type');
  return { status: res.status, text, type, events: res.status === 200 ? text.trim().split('\n').map((l) => JSON.parse(l)) : [JSON.parse(text)] };
}

beforeAll(async () => {
  dg = await startFakeDeepgramLive({
    script: [
      { afterAudioMs: 500, delayMs: 100, kind: 'partial', text: 'please' },
      { afterAudioMs: 1200, delayMs: 150, kind: 'final', text: 'Please call me.' },
      { afterAudioMs: 'end', delayMs: 0, kind: 'final', text: '' },
    ],
  });
  openai = await startFakeVendor('openai');
  process.env.VOXCTL_TEST_DG_LIVE_KEY = dg.key;
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-streamcfg-'));
  const configPath = join(dir, 'voxctl.config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      stt: {
        providers: {
          'stt-b': { adapter: 'deepgram', base_url: dg.url, api_key_env: 'VOXCTL_TEST_DG_LIVE_KEY', model: 'nova-3', streaming_model: 'nova-3-general' },
          'stt-a-model-1': { adapter: 'openai', base_url: openai.url },
          'stt-c': { adapter: 'deepgram', base_url: dg.url, api_key_env: 'VOXCTL_TEST_UNSET_KEY' },
        },
      },
    }),
  );
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
  await openai?.close();
});

describe('GET /v1/stt/providers', () => {
  test('each item says whether it streams', async () => {
    const res = await fetch(`${s.url}/v1/stt/providers`, { headers: auth() });
    const items = ((await res.json()) as { items: { id: string; streaming: boolean; model: string | null }[] }).items;
    const byId = Object.fromEntries(items.map((i) => [i.id, i]));
    expect(byId['stt-b']).toMatchObject({ streaming: true });
    expect(byId['local-sphinx']).toMatchObject({ streaming: true });
    expect(byId['stt-a-model-1']).toMatchObject({ streaming: false });
    expect(byId['stt-h']).toMatchObject({ streaming: false });
  });
});

describe('POST /v1/stt/stream', () => {
  test('refuses providers that cannot stream, unknown or unconfigured ones, and a bad pace (400)', async () => {
    const cases: [unknown, string][] = [
      [{ audio_url: audioUrl, providers: ['stt-a-model-1'] }, 'Provider does not stream: stt-a-model-1'],
      [{ audio_url: audioUrl, providers: ['nope'] }, 'Unknown provider: nope'],
      [{ audio_url: audioUrl, providers: ['stt-c'] }, 'Provider not configured: stt-c'],
      [{ audio_url: audioUrl, providers: ['stt-d'] }, 'Provider not configured: stt-d'],
    ];
    for (const [body, detail] of cases) {
      const r = await stream(body);
      expect(r.status).toBe(400);
      expect(r.events[0].detail).toBe(detail);
    }
    expect((await stream({ audio_url: audioUrl, providers: ['stt-b'], pace: 5 })).status).toBe(400);
    expect(dg.streams.length).toBe(0);
  });

  test('streams to Deepgram and local-sphinx at once: NDJSON events, then the figures', async () => {
    // The fake runs in this process: its receipt times are late by however long the event loop was held,
    // which widens the ±10 ms (by ~1 ms on a quiet machine).
    const lag = monitorEventLoopDelay({ resolution: 1 });
    lag.enable();
    const r = await stream({ audio_url: audioUrl, providers: ['stt-b', 'local-sphinx'], pace: 1 });
    lag.disable();
    const slack = lag.max / 1e6;
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/x-ndjson; charset=utf-8');
    expect(dg.violations).toEqual([]);
    expect(dg.streams.at(-1)!.query.get('model')).toBe('nova-3-general');
    expect(r.events[0]).toEqual({ event: 'start', providers: ['stt-b', 'local-sphinx'], audio_ms: 1500, end_of_speech_ms: 1200, pace: 1 });
    expect(r.events.filter((e) => e.provider === 'stt-b' && (e.event === 'partial' || e.event === 'final')).map((e) => e.text)).toEqual(['please', 'Please call me.', '']);
    const done = r.events.at(-1);
    expect(done.event).toBe('done');
    expect(Object.keys(done.results)).toEqual(['stt-b', 'local-sphinx']);
    const b = done.results['stt-b'];
    expect(b).toMatchObject({ transcript: 'Please call me.', revisions: 0, early_words: 0, end_of_speech_ms: 1200 });
    // The fake answered the partial 100 ms after hearing 500 ms of audio (frame 24, sent at 480 ms), the
    // final 150 ms after the end-of-speech frame; what it actually did on this machine is in its record.
    const rec = dg.streams.at(-1)!;
    const partial = rec.sent.find((x) => x.index === 0)!;
    const final = rec.sent.find((x) => x.index === 1)!;
    expect(Math.abs(b.first_partial_ms - (partial.sentAt - rec.frames[0]!.at))).toBeLessThanOrEqual(10 + slack);
    expect(Math.abs(b.final_latency_ms - (final.sentAt - final.heardAt))).toBeLessThanOrEqual(10 + slack);
    expect(b.achieved_pace).toBeGreaterThan(0.95);
    expect(b.achieved_pace).toBeLessThan(1.05);
    // The tone is no speech to PocketSphinx: whatever it says, it answers without an error.
    expect(done.results['local-sphinx'].error).toBeUndefined();
    expect(r.events.filter((e) => e.event === 'result').map((e) => e.provider).sort()).toEqual(['local-sphinx', 'stt-b']);
  });
});
