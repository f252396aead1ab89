import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGladiaStreaming } from '../../../../../../src/server/engines/stt/streaming/gladia.js';
import { runStream } from '../../../../../../src/server/engines/stt/streaming/run.js';
import { FrameScheduler } from '../../../../../../src/server/engines/stt/streaming/scheduler.js';
import { startFakeGladiaLive, type FakeStreamingVendor, type ScriptedResult } from '../../../../../helpers/fake-stt-streaming.js';
import { toneBurst } from '../../../../../helpers/streaming-audio.js';

let fake: FakeStreamingVendor | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const settings = (f: FakeStreamingVendor, extra = {}) => ({ baseUrl: f.url, model: null, pollIntervalMs: 10, apiKeyEnv: 'GL_KEY', apiKey: () => f.key, ...extra });
const audio = toneBurst({ leadMs: 200, speechMs: 800, tailMs: 200 });
const SCRIPT: ScriptedResult[] = [
  { afterAudioMs: 400, delayMs: 50, kind: 'partial', text: 'please' },
  { afterAudioMs: 1000, delayMs: 80, kind: 'final', text: 'Please call me.', words: [{ word: 'Please', start: 0.2, end: 0.5 }, { word: 'call', start: 0.5, end: 0.8 }, { word: 'me.', start: 0.8, end: 1.0 }] },
];

describe('Gladia live v2 adapter against the fake', () => {
  it('POST /v2/live, then the returned WebSocket: binary audio, stop_recording, close 1000', async () => {
    fake = await startFakeGladiaLive({ script: SCRIPT });
    const run = await runStream({ scheduler: new FrameScheduler() }, createGladiaStreaming(settings(fake, { streamingModel: 'solaria-1' })), audio, { pace: 4, language: 'en-US' });
    expect(fake.violations).toEqual([]);
    expect(run.error).toBeUndefined();
    const rec = fake.streams[0]!;
    expect(Object.fromEntries([...rec.query].map(([k, v]) => [k, JSON.parse(v) as unknown]))).toEqual({
      encoding: 'wav/pcm', bit_depth: 16, sample_rate: 16000, channels: 1, model: 'solaria-1',
      language_config: { languages: ['en'], code_switching: false },
      messages_config: { receive_partial_transcripts: true, receive_final_transcripts: true },
    });
    expect(rec.frames.length).toBe(60);
    expect(rec.controls).toEqual(['{"type":"stop_recording"}']);
    await vi.waitFor(() => expect(rec.closedWith).toBe(1000));
    expect(run.transcript).toBe('Please call me.');
    expect(run.early_words).toBe(0);
    expect(run.final_latency_ms).toBeGreaterThanOrEqual(70);
  });

  it('refused key at init, mid-stream close, error message, malformed message, stall', async () => {
    fake = await startFakeGladiaLive({ script: SCRIPT });
    const refused = await runStream({ scheduler: new FrameScheduler() }, createGladiaStreaming({ ...settings(fake), apiKey: () => 'bad' }), audio, { pace: 4 });
    expect(refused.error).toEqual({ code: 'upstream_error', message: 'Gladia rejected the credentials (HTTP 401): Invalid or missing api key' });
    await fake.close();
    for (const [mode, code, message] of [
      ['drop', 'upstream_error', /^Gladia closed the stream \(code 1011: internal error\)$/],
      ['error-message', 'upstream_error', /^Gladia reported an error: \{"message":"fake failure"\}$/],
      ['malformed', 'upstream_error', /^Gladia sent a malformed message \(not JSON text\)$/],
      ['stall', 'timeout', /^No message for 0\.3 s after the end of the audio/],
    ] as const) {
      fake = await startFakeGladiaLive({ script: SCRIPT, mode });
      const run = await runStream({ scheduler: new FrameScheduler() }, createGladiaStreaming(settings(fake)), audio, { pace: 4, stallTimeoutMs: 300 });
      expect(run.error?.code, mode).toBe(code);
      expect(run.error?.message, mode).toMatch(message);
      await fake.close();
      fake = undefined;
    }
  });
});
