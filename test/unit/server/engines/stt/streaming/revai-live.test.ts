import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRevAiStreaming } from '../../../../../../src/server/engines/stt/streaming/revai.js';
import { runStream } from '../../../../../../src/server/engines/stt/streaming/run.js';
import { FrameScheduler } from '../../../../../../src/server/engines/stt/streaming/scheduler.js';
import { startFakeRevAiLive, type FakeStreamingVendor, type ScriptedResult } from '../../../../../helpers/fake-stt-streaming.js';
import { toneBurst } from '../../../../../helpers/streaming-audio.js';

let fake: FakeStreamingVendor | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const settings = (f: FakeStreamingVendor, extra = {}) => ({ baseUrl: f.url, model: null, pollIntervalMs: 10, apiKeyEnv: 'REV_KEY', apiKey: () => f.key, ...extra });
const audio = toneBurst({ leadMs: 200, speechMs: 800, tailMs: 200 });
const SCRIPT: ScriptedResult[] = [
  { afterAudioMs: 400, delayMs: 50, kind: 'partial', text: 'please' },
  { afterAudioMs: 'end', delayMs: 80, kind: 'final', text: 'Please call me.', words: [{ word: 'Please', start: 0.2, end: 0.5 }, { word: 'call', start: 0.5, end: 0.8 }, { word: 'me.', start: 0.8, end: 1.0 }] },
];

describe('Rev.ai streaming adapter against the fake', () => {
  it('access_token and content_type, connected, binary audio, EOS, close 1000', async () => {
    fake = await startFakeRevAiLive({ script: SCRIPT });
    const run = await runStream({ scheduler: new FrameScheduler() }, createRevAiStreaming(settings(fake, { streamingModel: 'machine' })), audio, { pace: 4, language: 'en-US' });
    expect(fake.violations).toEqual([]);
    expect(run.error).toBeUndefined();
    const rec = fake.streams[0]!;
    expect(Object.fromEntries(rec.query)).toEqual({ access_token: fake.key, content_type: 'audio/x-raw;layout=interleaved;rate=16000;format=S16LE;channels=1', transcriber: 'machine', language: 'en' });
    expect(rec.frames.length).toBe(60);
    expect(rec.controls).toEqual(['EOS']);
    await vi.waitFor(() => expect(rec.closedWith).toBe(1000));
    expect(run.transcript).toBe('Please call me.');
    expect(run.early_words).toBe(0);
  });

  it('refused key (4001) without echoing it, credits gone mid-stream, malformed message, stall', async () => {
    fake = await startFakeRevAiLive({ script: SCRIPT });
    const refused = await runStream({ scheduler: new FrameScheduler() }, createRevAiStreaming({ ...settings(fake), apiKey: () => 'bad-secret' }), audio, { pace: 4 });
    expect(refused.error).toEqual({ code: 'upstream_error', message: 'Rev.ai rejected the credentials (close 4001: Unauthorized)' });
    await fake.close();
    for (const [mode, code, message] of [
      ['drop', 'upstream_error', /^Rev\.ai closed the stream \(close 4003: Insufficient credits\)$/],
      ['malformed', 'upstream_error', /^Rev\.ai sent a malformed message \(not JSON text\)$/],
      ['stall', 'timeout', /^No message for 0\.3 s after the end of the audio/],
    ] as const) {
      fake = await startFakeRevAiLive({ script: SCRIPT, mode });
      const run = await runStream({ scheduler: new FrameScheduler() }, createRevAiStreaming(settings(fake)), audio, { pace: 4, stallTimeoutMs: 300 });
      expect(run.error?.code, mode).toBe(code);
      expect(run.error?.message, mode).toMatch(message);
      await fake.close();
      fake = undefined;
    }
  });
});
