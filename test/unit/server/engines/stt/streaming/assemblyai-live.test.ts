import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAssemblyAiStreaming } from '../../../../../../src/server/engines/stt/streaming/assemblyai.js';
import { runStream } from '../../../../../../src/server/engines/stt/streaming/run.js';
import { FrameScheduler } from '../../../../../../src/server/engines/stt/streaming/scheduler.js';
import { startFakeAssemblyAiLive, type FakeStreamingVendor, type ScriptedResult } from '../../../../../helpers/fake-stt-streaming.js';
import { toneBurst } from '../../../../../helpers/streaming-audio.js';

let fake: FakeStreamingVendor | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const settings = (f: FakeStreamingVendor, extra = {}) => ({ baseUrl: f.url, model: null, pollIntervalMs: 10, apiKeyEnv: 'AAI_KEY', apiKey: () => f.key, ...extra });
const live = (f: FakeStreamingVendor, extra = {}) => createAssemblyAiStreaming(settings(f, extra), { customBase: true });
// 1.21 s (60.5 frames: the last one short, so the tail needs padding to 50 ms).
const audio = toneBurst({ leadMs: 200, speechMs: 800, tailMs: 210 });
const SCRIPT: ScriptedResult[] = [
  { afterAudioMs: 400, delayMs: 50, kind: 'partial', text: 'please' },
  { afterAudioMs: 1000, delayMs: 100, kind: 'final', text: 'Please call me.', words: [{ word: 'Please', start: 0.2, end: 0.5 }, { word: 'call', start: 0.5, end: 0.8 }, { word: 'me.', start: 0.8, end: 1.0 }] },
];

describe('AssemblyAI Universal-Streaming v3 adapter against the fake', () => {
  it('handshake (Begin), 60 ms chunks, padded tail, Terminate; the formatted end of turn is the final', async () => {
    fake = await startFakeAssemblyAiLive({ script: SCRIPT });
    const run = await runStream({ scheduler: new FrameScheduler() }, live(fake, { streamingModel: 'universal-streaming-multilingual' }), audio, { pace: 4, keyterms: ['voxctl', 'Deepgram'] });
    expect(fake.violations).toEqual([]);
    expect(run.error).toBeUndefined();
    const rec = fake.streams[0]!;
    expect(Object.fromEntries(rec.query)).toEqual({ sample_rate: '16000', encoding: 'pcm_s16le', speech_model: 'universal-streaming-multilingual', format_turns: 'true', keyterms_prompt: '["voxctl","Deepgram"]' });
    expect(rec.headers.authorization).toBe(fake.key);
    // 61 frames of 20 ms (the last 10 ms) → 20 chunks of 60 ms and a padded 50 ms tail.
    expect(rec.frames.length).toBe(21);
    expect(rec.frames[0]!.audioMs).toBe(60);
    expect(rec.frames.at(-1)!.audioMs).toBe(1250);
    expect(rec.controls).toEqual(['{"type":"Terminate"}']);
    await vi.waitFor(() => expect(rec.closedWith).toBe(1000));
    expect(run.transcript).toBe('Please call me.');
    expect(run.revisions).toBe(0);
    expect(run.early_words).toBe(0);
    expect(run.final_latency_ms).toBeGreaterThanOrEqual(90);
  });

  it('refused credentials, mid-stream close, error message, malformed message, stall', async () => {
    fake = await startFakeAssemblyAiLive({ script: SCRIPT });
    const refused = await runStream({ scheduler: new FrameScheduler() }, createAssemblyAiStreaming({ ...settings(fake), apiKey: () => 'bad' }, { customBase: true }), audio, { pace: 4 });
    expect(refused.error?.message).toMatch(/^AssemblyAI rejected the credentials \(HTTP 401\): Invalid API key$/);
    await fake.close();
    for (const [mode, code, message] of [
      ['drop', 'upstream_error', /^AssemblyAI closed the stream \(code 3005: Server error\)$/],
      ['error-message', 'upstream_error', /^AssemblyAI reported an error: Input validation error$/],
      ['malformed', 'upstream_error', /^AssemblyAI sent a malformed message \(not JSON text\)$/],
      ['stall', 'timeout', /^No message for 0\.3 s after the end of the audio/],
    ] as const) {
      fake = await startFakeAssemblyAiLive({ script: SCRIPT, mode });
      const run = await runStream({ scheduler: new FrameScheduler() }, live(fake), audio, { pace: 4, stallTimeoutMs: 300 });
      expect(run.error?.code, mode).toBe(code);
      expect(run.error?.message, mode).toMatch(message);
      await fake.close();
      fake = undefined;
    }
  });

  it('without a base_url it streams to streaming.assemblyai.com with the default model', () => {
    const cap = createAssemblyAiStreaming({ baseUrl: 'https://api.assemblyai.com', model: null, pollIntervalMs: 10, apiKey: () => 'k' }, { customBase: false });
    expect(cap.model).toBe('universal-streaming-english');
  });
});
