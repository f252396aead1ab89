// Streaming evaluations over real loopback HTTP (DESIGN §13.2): the mode and pace rules, and latency
// figures measured against a Deepgram live fake answering at known delays — the truth is what the fake
// itself recorded (when the frame holding the end of speech arrived, when its final answer left).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, type Reply } from '../helpers/core-http.js';
import { fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { fakeProvidersConfig, pollEvaluation } from '../helpers/evaluations.js';
import { startFakeDeepgramLive, type FakeStreamingVendor } from '../helpers/fake-stt-streaming.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { decodeWavToPcm16 } from '../../src/server/audio/wav.js';
import { speechBounds } from '../../src/shared/streaming/speech-bounds.js';
import { frameHolding } from '../../src/shared/streaming/metrics.js';

type Json = Reply['body'];
const TEXT = 'Please call me back tomorrow morning.';

let s: TestServer;
let dg: FakeStreamingVendor;
let stalled: FakeStreamingVendor;
let openai: FakeVendor;
let dir: string;
let flite: string;
const post = (json: unknown) => call(s, 'POST', '/v1/evaluations', { key: s.key, json });
const body = (over: Record<string, unknown> = {}) => ({ texts: [TEXT], speakers: { ids: [flite] }, providers: ['stt-b'], mode: 'streaming', ...over });

beforeAll(async () => {
  dg = await startFakeDeepgramLive({
    script: [
      { afterAudioMs: 400, delayMs: 60, kind: 'partial', text: 'please' },
      { afterAudioMs: 'end', delayMs: 120, kind: 'final', text: TEXT },
    ],
  });
  // Answers partials, never the final result: the stream stalls after the end of the audio (DESIGN §15.3).
  stalled = await startFakeDeepgramLive({ mode: 'stall', script: [{ afterAudioMs: 400, delayMs: 60, kind: 'partial', text: 'please' }] });
  openai = await startFakeVendor('openai');
  dir = mkdtempSync(join(tmpdir(), 'voxctl-stream-eval-'));
  const configPath = fakeProvidersConfig(dir, {
    'stt-b': { adapter: 'deepgram', model: 'nova-3', fake: dg },
    'stt-c': { adapter: 'deepgram', model: 'nova-3', fake: stalled },
    'stt-a-model-1': { adapter: 'openai', fake: openai },
  });
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  flite = await fliteSpeaker(s.runtime.db);
});
afterAll(async () => {
  await s?.close();
  await dg?.close();
  await stalled?.close();
  await openai?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /v1/evaluations with mode "streaming" (DESIGN §13.2)', () => {
  it('refuses a provider without a streaming adapter, a pace in batch mode and a pace out of range; stores nothing', async () => {
    const before = (await call(s, 'GET', '/v1/evaluations', { key: s.key })).body.total;
    const cases: [unknown, string][] = [
      [body({ providers: ['stt-b', 'stt-a-model-1'] }), 'Provider does not stream: stt-a-model-1'],
      [body({ mode: 'batch', pace: 2 }), 'pace applies to streaming mode'],
      [body({ mode: undefined, pace: 1 }), 'pace applies to streaming mode'],
    ];
    for (const [json, detail] of cases) {
      const r = await post(json);
      expect([r.status, r.body.detail], r.text).toEqual([400, detail]);
    }
    for (const pace of [0.25, 5]) expect((await post(body({ pace }))).status).toBe(400);
    expect((await post(body({ mode: 'live' }))).status).toBe(400);
    expect((await call(s, 'GET', '/v1/evaluations', { key: s.key })).body.total).toBe(before);
    expect(dg.streams).toHaveLength(0);
  });

  // The Deepgram fake alone: its receipt times are the truth, so nothing else may hold this process's
  // event loop while the frames arrive (PocketSphinx has an evaluation of its own below).
  describe('one utterance streamed to the Deepgram live fake at pace 1', () => {
    let ev: Json;
    let rows: Json[];
    // The fake runs in this process: its receipt times are late by however long the event loop was held.
    // That lag (its worst case during the run) widens the ±10 ms the figures must meet; it is ~1 ms when
    // the machine is quiet.
    let lagMs = 0;
    beforeAll(async () => {
      const lag = monitorEventLoopDelay({ resolution: 1 });
      lag.enable();
      const created = await post(body());
      expect(created.status, created.text).toBe(201);
      ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 120_000 });
      lag.disable();
      lagMs = lag.max / 1e6;
      rows = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances`, { key: s.key })).body.items;
    }, 150_000);

    it('records the mode and the pace', () => {
      expect(ev.status).toBe('completed');
      expect(ev).toMatchObject({ mode: 'streaming', pace: 1 });
    });

    it('measures final latency from the end of speech within 10 ms of what the fake did', async () => {
      expect(dg.violations).toEqual([]);
      const u = rows.find((r) => r.provider === 'stt-b')!;
      expect(u).toMatchObject({ transcript: TEXT, wer: 0, revisions: 0, early_words: 0, error: null });
      // The truth: when the frame holding the end of speech reached the fake, and when its final answer left.
      const wav = decodeWavToPcm16(Buffer.from(await (await fetch(u.audio_url)).arrayBuffer()));
      const rec = dg.streams.at(-1)!;
      const frames = rec.frames.length;
      const eosFrame = frameHolding(speechBounds(wav.pcm, wav.sampleRate).endMs!, 20, frames);
      const eosArrived = rec.frames[eosFrame]!.at;
      const final = rec.sent.find((x) => x.index === 1)!;
      expect(Math.abs(u.final_latency_ms - (final.sentAt - eosArrived))).toBeLessThanOrEqual(10 + lagMs);
      const partial = rec.sent.find((x) => x.index === 0)!;
      expect(Math.abs(u.first_partial_ms - (partial.sentAt - rec.frames[0]!.at))).toBeLessThanOrEqual(10 + lagMs);
      // The final answer came 120 ms after the stream's end, which is after the end of speech.
      expect(u.final_latency_ms).toBeGreaterThanOrEqual(110);
    });

    it('adds the latency columns to every summary row, from the utterances', () => {
      const row = ev.summary.find((r: Json) => r.provider === 'stt-b' && r.group === 'all');
      const u = rows.find((r) => r.provider === 'stt-b')!;
      expect(row).toMatchObject({
        utterances: 1,
        wer: 0,
        first_partial_ms: { p50: u.first_partial_ms, p95: u.first_partial_ms },
        final_latency_ms: { p50: u.final_latency_ms, p95: u.final_latency_ms, p99: u.final_latency_ms },
        revisions_per_utterance: 0,
        early_words: 0,
      });
      for (const r of ev.summary) expect(r).toHaveProperty('final_latency_ms');
    });

    it('shows the latency panel in the report', async () => {
      const html = await (await fetch(ev.report_url)).text();
      expect(html).toContain('Latency after the caller stops');
      expect(html).toContain('streamed at pace 1');
    });

    it('reruns in the same mode at the same pace', async () => {
      const r = await call(s, 'POST', `/v1/evaluations/${ev.evaluation_id}/rerun`, { key: s.key });
      expect(r.status, r.text).toBe(201);
      const again = await pollEvaluation(s, r.body.evaluation_id, { timeoutMs: 120_000 });
      expect(again).toMatchObject({ status: 'completed', mode: 'streaming', pace: 1, baseline_id: ev.evaluation_id });
    }, 150_000);
  });

  it('a stream that stalls is a timeout in its row, never left out of the percentiles (DESIGN §15.3)', async () => {
    const created = await post(body({ providers: ['stt-b', 'stt-c'] }));
    expect(created.status, created.text).toBe(201);
    const ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 120_000 });
    expect(ev.status).toBe('completed');
    const row = (provider: string) => ev.summary.find((r: Json) => r.provider === provider && r.group === 'all');
    // The stalled provider: its one stream failed, so every percentile reaches +∞.
    expect(row('stt-c')).toMatchObject({
      utterances: 0,
      attempted: 1,
      failed_requests: 1,
      streams_failed: 1,
      final_latency_ms: { p50: null, p95: null, p99: null },
    });
    expect(row('stt-b')).toMatchObject({ attempted: 1, failed_requests: 0, streams_failed: 0, final_latency_ms: { p50: expect.any(Number) } });
    const utterance = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances?provider=stt-c`, { key: s.key })).body.items[0];
    expect(utterance.final_latency_ms).toBeNull();
    expect(utterance.error).toMatchObject({ code: 'timeout' });
  }, 150_000);

  it('streams to local-sphinx, fed as the audio arrives, under two conditions', async () => {
    const created = await post(body({ providers: ['local-sphinx'], conditions: ['clean', 'telephone'], pace: 2 }));
    expect(created.status, created.text).toBe(201);
    const ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 120_000 });
    expect(ev).toMatchObject({ status: 'completed', mode: 'streaming', pace: 2 });
    const rows = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances`, { key: s.key })).body.items as Json[];
    expect(rows).toHaveLength(2);
    for (const u of rows) {
      expect(u.error).toBeNull();
      expect(u.transcript).toEqual(expect.any(String));
      expect(u.final_latency_ms).toEqual(expect.any(Number));
      expect(u.revisions).toEqual(expect.any(Number));
    }
    const clean = ev.summary.find((r: Json) => r.condition === 'clean' && r.group === 'all');
    expect(clean.final_latency_ms.p50).toBe(rows.find((u) => u.condition === 'clean')!.final_latency_ms);
  }, 150_000);

  it('keeps a batch evaluation as it was: mode batch, no pace, no latency columns', async () => {
    const created = await post(body({ mode: undefined, providers: ['stt-a-model-1'] }));
    expect(created.status, created.text).toBe(201);
    const ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 60_000 });
    expect(ev.mode).toBe('batch');
    expect(ev).not.toHaveProperty('pace');
    for (const r of ev.summary) expect(r).not.toHaveProperty('final_latency_ms');
    const u = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances`, { key: s.key })).body.items[0];
    expect(u).not.toHaveProperty('final_latency_ms');
  }, 90_000);
});
