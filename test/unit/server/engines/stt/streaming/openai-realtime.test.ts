import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOpenAiStreaming } from '../../../../../../src/server/engines/stt/streaming/openai.js';
import { runStream } from '../../../../../../src/server/engines/stt/streaming/run.js';
import { FrameScheduler } from '../../../../../../src/server/engines/stt/streaming/scheduler.js';
import type { StreamingCapability } from '../../../../../../src/server/engines/stt/types.js';
import { startFakeOpenAiRealtime, type FakeStreamingVendor, type ScriptedResult } from '../../../../../helpers/fake-stt-streaming.js';
import { toneBurst } from '../../../../../helpers/streaming-audio.js';

let fake: FakeStreamingVendor | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const live = (f: FakeStreamingVendor, extra = {}) =>
  createOpenAiStreaming({ baseUrl: f.url, model: 'whisper-1', streamingModel: 'gpt-4o-transcribe', pollIntervalMs: 10, apiKeyEnv: 'OA_KEY', apiKey: () => f.key, ...extra }) as StreamingCapability;
const audio = toneBurst({ leadMs: 200, speechMs: 800, tailMs: 200 });
// One turn committed by the server's VAD, then the rest committed by our final commit.
const SCRIPT: ScriptedResult[] = [
  { afterAudioMs: 600, delayMs: 30, kind: 'partial', text: 'Please' },
  { afterAudioMs: 700, delayMs: 40, kind: 'final', text: 'Please' },
  { afterAudioMs: 900, delayMs: 30, kind: 'partial', text: 'call' },
  { afterAudioMs: 'end', delayMs: 60, kind: 'final', text: 'call me.' },
];

describe('OpenAI Realtime transcription adapter against the fake', () => {
  it('only a binding with a streaming_model streams', () => {
    expect(createOpenAiStreaming({ baseUrl: 'http://x', model: 'whisper-1', pollIntervalMs: 10, apiKey: () => 'k' })).toBeUndefined();
  });

  it('session update, 24 kHz base64 appends, a final commit, close once every turn completed', async () => {
    fake = await startFakeOpenAiRealtime({ script: SCRIPT });
    const run = await runStream({ scheduler: new FrameScheduler() }, live(fake, { language: 'en' }), audio, { pace: 4, keyterms: ['voxctl'] });
    expect(fake.violations).toEqual([]);
    expect(run.error).toBeUndefined();
    const rec = fake.streams[0]!;
    expect(JSON.parse(rec.controls[0]!)).toEqual({
      type: 'transcription_session.update',
      session: { input_audio_format: 'pcm16', input_audio_transcription: { model: 'gpt-4o-transcribe', language: 'en', prompt: 'voxctl' }, turn_detection: { type: 'server_vad' } },
    });
    // 1.2 s at 24 kHz in 20 ms frames.
    expect(rec.frames.length).toBe(60);
    expect(rec.frames.at(-1)!.audioMs).toBe(1200);
    expect(rec.controls.at(-1)).toBe('{"type":"input_audio_buffer.commit"}');
    await vi.waitFor(() => expect(rec.closedWith).toBe(1000));
    expect(run.transcript).toBe('Please call me.');
    expect(run.revisions).toBe(0);
  });

  it('a final commit of silence (an empty turn) is not an error', async () => {
    fake = await startFakeOpenAiRealtime({ script: SCRIPT.slice(0, 2) });
    const run = await runStream({ scheduler: new FrameScheduler() }, live(fake), audio, { pace: 4 });
    expect(fake.violations).toEqual([]);
    expect(run.error).toBeUndefined();
    expect(run.transcript).toBe('Please');
  });

  it('refused key, server error event, mid-stream close, malformed message, stall', async () => {
    fake = await startFakeOpenAiRealtime({ script: SCRIPT });
    const refused = await runStream({ scheduler: new FrameScheduler() }, live(fake, { apiKey: () => 'sk-bad' }), audio, { pace: 4 });
    expect(refused.error).toEqual({ code: 'upstream_error', message: 'OpenAI rejected the credentials (HTTP 401): Incorrect API key provided' });
    await fake.close();
    for (const [mode, code, message] of [
      ['error-message', 'upstream_error', /^OpenAI reported an error: The server had an error$/],
      ['drop', 'upstream_error', /^OpenAI closed the stream \(code 1011: internal error\)$/],
      ['malformed', 'upstream_error', /^OpenAI sent a malformed message \(not JSON text\)$/],
      ['stall', 'timeout', /^No message for 0\.3 s after the end of the audio/],
    ] as const) {
      fake = await startFakeOpenAiRealtime({ script: SCRIPT, mode });
      const run = await runStream({ scheduler: new FrameScheduler() }, live(fake), audio, { pace: 4, stallTimeoutMs: 300 });
      expect(run.error?.code, mode).toBe(code);
      expect(run.error?.message, mode).toMatch(message);
      await fake.close();
      fake = undefined;
    }
  });
});
