import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSpeechmaticsStreaming } from '../../../../../../src/server/engines/stt/streaming/speechmatics.js';
import { runStream } from '../../../../../../src/server/engines/stt/streaming/run.js';
import { FrameScheduler } from '../../../../../../src/server/engines/stt/streaming/scheduler.js';
import { startFakeSpeechmaticsLive, type FakeStreamingVendor, type ScriptedResult } from '../../../../../helpers/fake-stt-streaming.js';
import { toneBurst } from '../../../../../helpers/streaming-audio.js';

let fake: FakeStreamingVendor | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const settings = (f: FakeStreamingVendor, extra = {}) => ({ baseUrl: f.url, model: null, pollIntervalMs: 10, apiKeyEnv: 'SM_KEY', apiKey: () => f.key, ...extra });
const live = (f: FakeStreamingVendor, extra = {}) => createSpeechmaticsStreaming(settings(f, extra), { customBase: true });
const audio = toneBurst({ leadMs: 200, speechMs: 800, tailMs: 200 });
const SCRIPT: ScriptedResult[] = [
  { afterAudioMs: 400, delayMs: 50, kind: 'partial', text: 'please', words: [{ word: 'please', start: 0.2, end: 0.4 }] },
  { afterAudioMs: 700, delayMs: 50, kind: 'final', text: 'Please', words: [{ word: 'Please', start: 0.2, end: 0.45 }] },
  { afterAudioMs: 800, delayMs: 50, kind: 'partial', text: 'call', words: [{ word: 'call', start: 0.5, end: 0.7 }] },
  { afterAudioMs: 'end', delayMs: 100, kind: 'final', text: 'call me.', words: [{ word: 'call', start: 0.5, end: 0.7 }, { word: 'me', start: 0.8, end: 1.0 }] },
];

describe('Speechmatics real-time adapter against the fake', () => {
  it('StartRecognition, binary audio, EndOfStream with the last seq_no, close after EndOfTranscript', async () => {
    fake = await startFakeSpeechmaticsLive({ script: SCRIPT });
    const run = await runStream({ scheduler: new FrameScheduler() }, live(fake, { streamingModel: 'enhanced' }), audio, { pace: 4, language: 'en-GB', keyterms: ['voxctl'] });
    expect(fake.violations).toEqual([]);
    expect(run.error).toBeUndefined();
    const rec = fake.streams[0]!;
    expect(rec.headers.authorization).toBe(`Bearer ${fake.key}`);
    expect(JSON.parse(rec.controls[0]!)).toEqual({
      message: 'StartRecognition',
      audio_format: { type: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 },
      transcription_config: { language: 'en', enable_partials: true, model: 'enhanced', additional_vocab: [{ content: 'voxctl' }] },
    });
    expect(rec.frames.length).toBe(60);
    expect(JSON.parse(rec.controls[1]!)).toEqual({ message: 'EndOfStream', last_seq_no: 60 });
    await vi.waitFor(() => expect(rec.closedWith).toBe(1000));
    expect(run.transcript).toBe('Please call me.');
    expect(run.revisions).toBe(0);
    expect(run.early_words).toBe(0);
  });

  it('refused credentials, mid-stream close, error message, malformed message, stall', async () => {
    fake = await startFakeSpeechmaticsLive({ script: SCRIPT });
    const refused = await runStream({ scheduler: new FrameScheduler() }, createSpeechmaticsStreaming({ ...settings(fake), apiKey: () => 'bad' }, { customBase: true }), audio, { pace: 4 });
    expect(refused.error?.message).toBe('Speechmatics rejected the credentials (HTTP 401): Unauthorized');
    await fake.close();
    for (const [mode, code, message] of [
      ['drop', 'upstream_error', /^Speechmatics closed the stream \(code 1011: internal error\)$/],
      ['error-message', 'upstream_error', /^Speechmatics reported an error: internal_error: fake failure$/],
      ['malformed', 'upstream_error', /^Speechmatics sent a malformed message \(not JSON text\)$/],
      ['stall', 'timeout', /^No message for 0\.3 s after the end of the audio/],
    ] as const) {
      fake = await startFakeSpeechmaticsLive({ script: SCRIPT, mode });
      const run = await runStream({ scheduler: new FrameScheduler() }, live(fake), audio, { pace: 4, stallTimeoutMs: 300 });
      expect(run.error?.code, mode).toBe(code);
      expect(run.error?.message, mode).toMatch(message);
      await fake.close();
      fake = undefined;
    }
  });
});
