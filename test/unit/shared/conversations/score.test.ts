import { describe, expect, it } from 'vitest';
import { wordsOf } from '../../../../src/shared/normalize.js';
import { hypothesisSegments, scoreCall, type HypothesisWord, type ReferenceTurn } from '../../../../src/shared/conversations/index.js';

const words = (t: string) => wordsOf(t, true);
const reference: ReferenceTurn[] = [
  { speaker: 'S1', start: 0.2, end: 1.8, text: 'Thank you for calling.' },
  { speaker: 'S2', start: 2.3, end: 4.1, text: 'My card was stolen yesterday.' },
  { speaker: 'S1', start: 4.6, end: 5.4, text: 'I am sorry.' },
];
/** Words with times spread over a turn, labelled as a vendor would. */
const spoken = (turn: ReferenceTurn, speaker: string | null): HypothesisWord[] => {
  const ws = words(turn.text);
  const step = (turn.end - turn.start) / ws.length;
  return ws.map((text, i) => ({ text, start: turn.start + i * step, end: turn.start + (i + 1) * step - 0.01, speaker }));
};

describe('scoreCall (DESIGN §16.4)', () => {
  it('a perfect diarized answer scores 0 everywhere', () => {
    const ws = [...spoken(reference[0]!, '0'), ...spoken(reference[1]!, '1'), ...spoken(reference[2]!, '0')];
    const s = scoreCall(reference, { transcript: ws.map((w) => w.text).join(' '), words: ws, diarized: true }, words);
    expect(s).toMatchObject({ wer: 0, droppedTurns: 0, loop: false, speakers: 2, speakersFound: 2, cpwer: { errors: 0, value: 0 }, der: { value: 0 } });
    expect(s.segments.map((g) => g.speaker)).toEqual(['0', '1', '0']);
  });

  it('counts a turn dropped whole, and a loop', () => {
    const ws = [...spoken(reference[0]!, 'A'), ...spoken(reference[2]!, 'A')];
    const s = scoreCall(reference, { transcript: ws.map((w) => w.text).join(' '), words: ws, diarized: true }, words);
    expect(s).toMatchObject({ deletions: 5, droppedTurns: 1, speakersFound: 1 });
    expect(s.cpwer).toMatchObject({ errors: 5, referenceWords: 12 });
    const looping = scoreCall(reference, { transcript: 'thank you '.repeat(6), words: [], diarized: false }, words);
    expect(looping.loop).toBe(true);
  });

  it('without diarization: WER only, cpWER and DER unsupported', () => {
    const s = scoreCall(reference, { transcript: 'thank you for calling my card was stolen yesterday i am sorry', words: [], diarized: false }, words);
    expect(s).toMatchObject({ wer: 0, speakersFound: null, cpwer: { unsupported: true }, der: { unsupported: true }, segments: [] });
  });

  it('a confused speaker shows in DER and cpWER, not in WER', () => {
    const ws = [...spoken(reference[0]!, '0'), ...spoken(reference[1]!, '0'), ...spoken(reference[2]!, '1')];
    const s = scoreCall(reference, { transcript: ws.map((w) => w.text).join(' '), words: ws, diarized: true }, words);
    expect(s.wer).toBe(0);
    expect((s.cpwer as { errors: number }).errors).toBeGreaterThan(0);
    expect((s.der as { value: number }).value).toBeGreaterThan(0.3);
  });
});

describe('hypothesisSegments', () => {
  it('joins one speaker\'s consecutive words closer than 0.5 s and splits on a longer pause or a new speaker', () => {
    const w = (text: string, start: number, end: number, speaker: string | null): HypothesisWord => ({ text, start, end, speaker });
    expect(hypothesisSegments([w('a', 0, 0.3, 'x'), w('b', 0.7, 1, 'x'), w('c', 1.5, 1.8, 'x'), w('d', 1.9, 2, 'y'), w('e', 2.1, 2.2, null)])).toEqual([
      { speaker: 'x', start: 0, end: 1 },
      { speaker: 'x', start: 1.5, end: 1.8 },
      { speaker: 'y', start: 1.9, end: 2 },
    ]);
    // one speaker's runs that overlap (non-monotonic vendor times) become one segment
    expect(hypothesisSegments([w('a', 0, 2, 'x'), w('b', 2.1, 3, 'y'), w('c', 1.5, 2.5, 'x')])).toEqual([
      { speaker: 'x', start: 0, end: 2.5 },
      { speaker: 'y', start: 2.1, end: 3 },
    ]);
  });
});
