import { afterEach, describe, expect, it, vi } from 'vitest';
import { createElevenLabsStreaming } from '../../../../../../src/server/engines/stt/streaming/elevenlabs.js';
import { runStream } from '../../../../../../src/server/engines/stt/streaming/run.js';
import { FrameScheduler } from '../../../../../../src/server/engines/stt/streaming/scheduler.js';
import { startFakeElevenLabsLive, type FakeStreamingVendor, type ScriptedResult } from '../../../../../helpers/fake-stt-streaming.js';
import { toneBurst } from '../../../../../helpers/streaming-audio.js';

let fake: FakeStreamingVendor | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const settings = (f: FakeStreamingVendor, extra = {}) => ({ baseUrl: f.url, model: null, pollIntervalMs: 10, apiKeyEnv: 'XI_KEY', apiKey: () => f.key, ...extra });
const audio = toneBurst({ leadMs: 200, speechMs: 800, tailMs: 200 });
const SCRIPT: ScriptedResult[] = [
  { afterAudioMs: 400, delayMs: 50, kind: 'partial', text: 'please' },
  { afterAudioMs: 1000, delayMs: 50, kind: 'final', text: 'Please call me.' },
];

describe('ElevenLabs Scribe realtime adapter against the fake', () => {
  it('session_started, base64 input_audio_chunk messages, a final commit, close after committed_transcript', async () => {
    fake = await startFakeElevenLabsLive({ script: SCRIPT });
    const run = await runStream({ scheduler: new FrameScheduler() }, createElevenLabsStreaming(settings(fake)), audio, { pace: 4, language: 'en-US' });
    expect(fake.violations).toEqual([]);
    expect(run.error).toBeUndefined();
    const rec = fake.streams[0]!;
    expect(Object.fromEntries(rec.query)).toEqual({ model_id: 'scribe_v2_realtime', audio_format: 'pcm_16000', commit_strategy: 'manual', language_code: 'en' });
    expect(rec.headers['xi-api-key']).toBe(fake.key);
    expect(rec.frames.length).toBe(60);
    expect(rec.controls.at(-1)).toBe('commit:true');
    await vi.waitFor(() => expect(rec.closedWith).toBe(1000));
    expect(run.transcript).toBe('Please call me.');
    expect(run.first_partial_ms).not.toBeNull();
  });

  it('auth_error, quota_exceeded, mid-stream close, malformed message, stall', async () => {
    fake = await startFakeElevenLabsLive({ script: SCRIPT });
    const refused = await runStream({ scheduler: new FrameScheduler() }, createElevenLabsStreaming({ ...settings(fake), apiKey: () => 'bad' }), audio, { pace: 4 });
    expect(refused.error).toEqual({ code: 'upstream_error', message: 'ElevenLabs rejected the credentials (auth_error: Invalid API key)' });
    await fake.close();
    for (const [mode, code, message] of [
      ['error-message', 'rate_limited', /^ElevenLabs rate limit exceeded \(quota_exceeded: Quota exceeded\)$/],
      ['drop', 'upstream_error', /^ElevenLabs closed the stream \(code 1011: internal error\)$/],
      ['malformed', 'upstream_error', /^ElevenLabs sent a malformed message \(not JSON text\)$/],
      ['stall', 'timeout', /^No message for 0\.3 s after the end of the audio/],
    ] as const) {
      fake = await startFakeElevenLabsLive({ script: SCRIPT, mode });
      const run = await runStream({ scheduler: new FrameScheduler() }, createElevenLabsStreaming(settings(fake)), audio, { pace: 4, stallTimeoutMs: 300 });
      expect(run.error?.code, mode).toBe(code);
      expect(run.error?.message, mode).toMatch(message);
      await fake.close();
      fake = undefined;
    }
  });
});
