import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSphinxStreaming } from '../../../../../../src/server/engines/stt/streaming/local-sphinx.js';
import { runStream } from '../../../../../../src/server/engines/stt/streaming/run.js';
import { FrameScheduler } from '../../../../../../src/server/engines/stt/streaming/scheduler.js';

// pocketsphinx-testdata: "go forward ten meters", 16 kHz raw PCM16.
const raw = readFileSync('/usr/share/pocketsphinx/test/data/goforward.raw');
const audio = { pcm: new Int16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2), sampleRate: 16000 };

describe('local-sphinx streaming (PocketSphinx fed through a FIFO as audio arrives)', () => {
  it('recognises the clip and measures its latency from the end of speech', async () => {
    const run = await runStream({ scheduler: new FrameScheduler() }, createSphinxStreaming(), audio, { pace: 2 });
    expect(run.error).toBeUndefined();
    expect(run.transcript).toBe('go forward ten meters');
    expect(run.frames).toBe(Math.ceil(audio.pcm.length / 320));
    expect(run.final_latency_ms).toBeGreaterThan(0);
    expect(run.first_partial_ms).toBeGreaterThan(0);
    expect(run.early_words).toBe(0);
  });

  it('a missing binary is provider_unavailable', async () => {
    const run = await runStream({ scheduler: new FrameScheduler() }, createSphinxStreaming({ binary: '/nonexistent/pocketsphinx' }), audio, { pace: 4 });
    expect(run.error?.code).toBe('provider_unavailable');
    expect(run.error?.message).toMatch(/not found; install PocketSphinx/);
  });

  it('a recogniser that dies mid-stream is an error, not a hang', async () => {
    // `false` exits at once without opening the FIFO.
    const run = await runStream({ scheduler: new FrameScheduler() }, createSphinxStreaming({ binary: '/bin/false' }), audio, { pace: 4 });
    expect(run.error?.code).toBe('provider_unavailable');
  });
});
