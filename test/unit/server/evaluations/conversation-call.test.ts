// A synthetic call built from real flite voices (DESIGN §16.1): the turns land where the plan says, the
// truth is exact to the millisecond, and the offline recogniser hears the whole call without dropping or
// repeating a turn (the long-form check issue 34 asks of local-sphinx).
import { afterAll, describe, expect, it } from 'vitest';
import { createTtsPool } from '../../../../src/server/engines/tts/pool.js';
import type { VoiceBinding } from '../../../../src/server/engines/tts/types.js';
import { encodeWav } from '../../../../src/server/audio/wav.js';
import { createLocalSphinxAdapter } from '../../../../src/server/engines/stt/local-sphinx.js';
import { buildCall, CALL_RATE } from '../../../../src/server/features/evaluations/conversations/build-call.js';
import { planCall, scoreCall, type ConversationOptions } from '../../../../src/shared/conversations/index.js';
import { speechBounds } from '../../../../src/shared/streaming/speech-bounds.js';
import { wordsOf } from '../../../../src/shared/normalize.js';

// Every word in PocketSphinx's dictionary (bench/lib/sentences.mjs).
const SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Please call me back after the meeting tomorrow morning.',
  'It is raining in the city today.',
  'The train to the airport leaves at seven.',
  'My brother bought a new car last week.',
  'Turn left at the second traffic light.',
];
const VOICES: Record<string, VoiceBinding> = {
  slt: { engine: 'flite', voice: 'slt', pitch: 0, rate: 1 },
  rms: { engine: 'flite', voice: 'rms', pitch: 0, rate: 1 },
};
const pool = createTtsPool({ size: 2 });
afterAll(() => pool.close());
const deps = { texts: SENTENCES.slice(0, 6), synthesize: (id: string, text: string) => pool.synthesize(text, VOICES[id]!) };
const options = (o: Partial<ConversationOptions>): ConversationOptions => ({ calls: 1, turns: 6, speakersPerCall: 2, gapMs: [400, 400], overlap: 0, ...o });

describe('buildCall', () => {
  it('places each turn a gap after the previous one, alternating voices, and the track holds speech only there', async () => {
    const plan = planCall({ options: options({}), seed: 7, speakers: ['slt', 'rms'], texts: 6 }, 1);
    const { audio, layout, truth } = await buildCall(plan, deps);
    expect(audio.sampleRate).toBe(CALL_RATE);
    expect(audio.pcm.length).toBe(layout.durationMs * 16);
    expect(truth.map((t) => t.speaker)).toEqual(['S1', 'S2', 'S1', 'S2', 'S1', 'S2']);
    for (let k = 1; k < truth.length; k++) expect(Math.round((truth[k]!.start - truth[k - 1]!.end) * 1000)).toBe(400);
    // Each turn's extent, measured again on the mix, is where the truth says (to the 10 ms window).
    for (const t of truth) {
      const from = Math.round(t.start * CALL_RATE) - 0.15 * CALL_RATE;
      const to = Math.round(t.end * CALL_RATE) + 0.15 * CALL_RATE;
      const b = speechBounds(audio.pcm.subarray(Math.max(0, from), to), CALL_RATE);
      expect(Math.abs(Math.max(0, from) / 16 + b.startMs! - t.start * 1000)).toBeLessThanOrEqual(10);
    }
  });

  it('overlapping turns start before the previous one ends', async () => {
    const plan = planCall({ options: options({ overlap: 0.5 }), seed: 3, speakers: ['slt', 'rms'], texts: 6 }, 1);
    const { truth } = await buildCall(plan, deps);
    const overlapped = plan.turns.filter((t) => t.overlapMs !== null).length;
    expect(overlapped).toBeGreaterThan(0);
    expect(truth.filter((t, k) => k > 0 && t.start < truth[k - 1]!.end).length).toBe(overlapped);
  });

  it('local-sphinx hears a whole call: no turn dropped, no loop', async () => {
    const plan = planCall({ options: options({ turns: 8 }), seed: 11, speakers: ['slt', 'rms'], texts: 6 }, 1);
    const { audio, truth } = await buildCall(plan, deps);
    const sphinx = createLocalSphinxAdapter();
    const out = await sphinx.transcribe({ ...audio, durationSeconds: audio.pcm.length / CALL_RATE, wav: encodeWav(audio.pcm, CALL_RATE) }, { signal: AbortSignal.timeout(120_000) });
    const score = scoreCall(truth, { transcript: out.transcript, words: [], diarized: false }, (t) => wordsOf(t, true));
    expect(score.droppedTurns).toBe(0);
    expect(score.loop).toBe(false);
    expect(score.insertions).toBeLessThan(score.referenceWords / 4); // no turn heard twice
    expect(score.wer).toBeLessThan(0.5);
  }, 180_000);
});
