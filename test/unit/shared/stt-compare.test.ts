import { describe, expect, test } from 'vitest';
import { compareTranscripts } from '../../../src/shared/stt-compare.js';
import { AccuracyInputError } from '../../../src/shared/accuracy.js';

const response = {
  results: {
    'local-sphinx': { transcript: 'please call me back after the meeting tomorrow morning', latency_ms: 900, confidence: 0.91 },
    'stt-b': { transcript: 'Please call me after the meeting, tomorrow morning!', latency_ms: 300, confidence: 0.98 },
    'stt-c': { transcript: null, latency_ms: 12, confidence: null, error: { code: 'rate_limited' as const, message: 'slow down' } },
    'stt-d': { transcript: '', latency_ms: 40, confidence: null },
  },
};

describe('compareTranscripts', () => {
  test('scores every transcript against the reference, in the response order', () => {
    const rows = compareTranscripts('Please call me back after the meeting tomorrow morning.', response);
    expect(rows.map((r) => r.provider)).toEqual(['local-sphinx', 'stt-b', 'stt-c', 'stt-d']);
    expect(rows[0]!.accuracy).toMatchObject({ wer: 0, deletions: 0, reference_words: 9 });
    expect(rows[1]!.accuracy).toMatchObject({ wer: 0.1111, deletions: 1, substitutions: 0, insertions: 0 });
    expect(rows[2]).toMatchObject({ accuracy: null, error: { code: 'rate_limited' } });
    expect(rows[3]!.accuracy).toMatchObject({ wer: 1, deletions: 9, hypothesis_words: 0 });
  });

  test('a reference without words is refused even when every provider failed', () => {
    expect(() => compareTranscripts(' ... ', { results: { 'stt-c': response.results['stt-c'] } })).toThrow(AccuracyInputError);
  });
});
