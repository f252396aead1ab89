import { describe, expect, it } from 'vitest';
import { speechBounds } from '../../../../src/shared/streaming/speech-bounds.js';
import { audioSentBy, frameHolding, isRevision, streamMetrics, type ReceivedResult } from '../../../../src/shared/streaming/metrics.js';

/** `ms` of a 440 Hz tone at `amp`, at 16 kHz. */
function tone(ms: number, amp: number, rate = 16000): Int16Array {
  const n = Math.round((rate * ms) / 1000);
  return Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * 440 * i) / rate)));
}
const concat = (...parts: Int16Array[]) => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

describe('speechBounds (§13.2: last 10 ms window within 35 dB of the peak window)', () => {
  it('finds onset and end of a tone burst in silence', () => {
    const pcm = concat(new Int16Array(3200), tone(1500, 10000), new Int16Array(8000));
    expect(speechBounds(pcm, 16000)).toEqual({ startMs: 200, endMs: 1700, durationMs: 2200 });
  });

  it('counts a quiet tail within 35 dB of the peak as speech, and one below it as silence', () => {
    // 30 dB below the peak (amplitude ×10^-1.5) is speech; 40 dB below (×10^-2) is not.
    const within = concat(tone(500, 10000), tone(300, 10000 * 10 ** -1.5), new Int16Array(3200));
    expect(speechBounds(within, 16000).endMs).toBe(800);
    const below = concat(tone(500, 10000), tone(300, 10000 * 10 ** -2), new Int16Array(3200));
    expect(speechBounds(below, 16000).endMs).toBe(500);
  });

  it('places windows on exact 10 ms marks at rates that are not a multiple of 100', () => {
    const pcm = concat(tone(1000, 8000, 22050), new Int16Array(22050 / 2));
    expect(speechBounds(pcm, 22050).endMs).toBe(1000);
  });

  it('answers null for silence', () => {
    expect(speechBounds(new Int16Array(1600), 16000)).toEqual({ startMs: null, endMs: null, durationMs: 100 });
  });
});

describe('streamMetrics', () => {
  // 100 frames of 20 ms sent exactly on time from t=1000.
  const sentAt = Array.from({ length: 100 }, (_, k) => 1000 + k * 20);
  const speech = { startMs: 200, endMs: 1700, durationMs: 2000 };
  const base = { frameMs: 20, sentAt, audioMs: 2000, speech };

  it('maps audio time to the frame holding it and to the audio sent by a time', () => {
    expect(frameHolding(1700, 20, 100)).toBe(84); // (1680, 1700]
    expect(frameHolding(1701, 20, 100)).toBe(85);
    expect(frameHolding(0, 20, 100)).toBe(0);
    expect(audioSentBy(999, base)).toBe(0);
    expect(audioSentBy(1000, base)).toBe(20);
    expect(audioSentBy(1019, base)).toBe(20);
    expect(audioSentBy(99999, base)).toBe(2000);
  });

  it('measures first partial from the first frame and final latency from the end-of-speech frame', () => {
    const results: ReceivedResult[] = [
      { kind: 'partial', text: '', at: 1100 },
      { kind: 'partial', text: 'please', at: 1450 },
      { kind: 'partial', text: 'please call', at: 1700 },
      { kind: 'final', text: 'Please call me.', at: 2880 },
      { kind: 'final', text: '', at: 3100 },
    ];
    const m = streamMetrics({ ...base, results });
    expect(m.first_partial_ms).toBe(450);
    // The end of speech (1700 ms) is in frame 84, sent at 1000 + 84·20 = 2680.
    expect(m.final_latency_ms).toBe(200);
    expect(m.transcript).toBe('Please call me.');
    expect(m.revisions).toBe(0);
    expect(m.early_words).toBe(0);
    expect(m.end_of_speech_ms).toBe(1700);
  });

  it('counts partials that change or withdraw an earlier word as revisions, not appends or case', () => {
    expect(isRevision(['a', 'b'], ['a', 'b', 'c'])).toBe(false);
    expect(isRevision(['a', 'b'], ['a', 'x'])).toBe(true);
    expect(isRevision(['a', 'b'], ['a'])).toBe(true);
    const results: ReceivedResult[] = [
      { kind: 'partial', text: 'please fall', at: 1500 },
      { kind: 'partial', text: 'Please call', at: 1600 }, // revision (fall → call)
      { kind: 'partial', text: 'please call me', at: 1700 },
      { kind: 'final', text: 'please call me', at: 1800 },
      { kind: 'partial', text: 'back', at: 1900 }, // a new segment: appends
      { kind: 'partial', text: 'bag', at: 2000 }, // revision
      { kind: 'final', text: 'back', at: 2100 },
    ];
    const m = streamMetrics({ ...base, results });
    expect(m.revisions).toBe(2);
    expect(m.transcript).toBe('please call me back');
  });

  it('flags words whose audio had not been sent, by word times when given', () => {
    const words = [
      { word: 'please', startMs: 200, endMs: 600 },
      { word: 'call', startMs: 600, endMs: 1000 },
      { word: 'me', startMs: 1000, endMs: 1700 },
    ];
    // At t=1500, 520 ms of audio had gone out: "please" (mid 400) is heard, "call" (800) and "me" (1350) are not.
    const early = streamMetrics({ ...base, results: [{ kind: 'final', text: 'please call me', words, at: 1500 }] });
    expect(early.early_words).toBe(2);
    const honest = streamMetrics({ ...base, results: [{ kind: 'final', text: 'please call me', words, at: 2700 }] });
    expect(honest.early_words).toBe(0);
  });

  it('flags early words without word times by spreading the transcript over the speech', () => {
    // The whole transcript arrives 100 ms into the stream.
    const results: ReceivedResult[] = [{ kind: 'final', text: 'one two three four five', at: 1100 }];
    expect(streamMetrics({ ...base, results }).early_words).toBeGreaterThanOrEqual(4);
    const late: ReceivedResult[] = [{ kind: 'final', text: 'one two three four five', at: 2800 }];
    expect(streamMetrics({ ...base, results: late }).early_words).toBe(0);
  });

  it('gives nulls when nothing was recognised', () => {
    const m = streamMetrics({ ...base, results: [] });
    expect(m).toMatchObject({ transcript: '', first_partial_ms: null, final_latency_ms: null, revisions: 0, early_words: 0 });
  });
});
