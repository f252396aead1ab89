import { describe, expect, it } from 'vitest';
import { exceedsFinalLatency, failsFinalLatency, finalLatencyLine, streamingSummary } from '../../../../src/shared/streaming/summary.js';

describe('streamingSummary', () => {
  it('percentiles over the utterances that have the figure; failed streams count nowhere', () => {
    const rows = [
      ...Array.from({ length: 100 }, (_, i) => ({ first_partial_ms: 200 + i, final_latency_ms: 100 + 2 * i, revisions: i % 3 === 0 ? 1 : 0, early_words: i === 5 ? 2 : 0 })),
      { first_partial_ms: null, final_latency_ms: null, revisions: 0, early_words: 0 },
      { first_partial_ms: 9999, final_latency_ms: 9999, revisions: 50, early_words: 50, error: { code: 'timeout' } },
    ];
    const s = streamingSummary(rows);
    expect(s.first_partial_ms).toEqual({ p50: 250, p95: 294 });
    expect(s.final_latency_ms).toEqual({ p50: 199, p95: 288, p99: 296 });
    expect(s.revisions_per_utterance).toBe(0.34); // 34 of 101 streamed utterances
    expect(s.early_words).toBe(2);
    expect(exceedsFinalLatency(s, 288)).toBe(false);
    expect(exceedsFinalLatency(s, 287)).toBe(true);
  });

  it('no figures: null percentiles, zeros, and nothing exceeds the gate', () => {
    const s = streamingSummary([{ first_partial_ms: null, final_latency_ms: null, revisions: 0, early_words: 0, error: { code: 'timeout' } }]);
    expect(s).toEqual({ first_partial_ms: null, final_latency_ms: null, revisions_per_utterance: 0, early_words: 0 });
    expect(exceedsFinalLatency(s, 0)).toBe(false);
  });
});

describe('the --max-final-latency gate (DESIGN §13.2)', () => {
  const row = (over: Record<string, unknown> = {}) => ({ provider: 'stt-b', condition: 'clean', group: 'all', final_latency_ms: { p50: 300, p95: 700, p99: 900 }, ...over });
  it('fails a row of group all whose p95 is above the bound, or that has no final latency; off without a bound', () => {
    expect(failsFinalLatency(row(), 700)).toBe(false);
    expect(failsFinalLatency(row(), 699)).toBe(true);
    expect(failsFinalLatency(row({ group: 'Scottish' }), 1)).toBe(false);
    expect(failsFinalLatency(row({ final_latency_ms: null }), 10_000)).toBe(true);
    expect(failsFinalLatency(row({ final_latency_ms: undefined }), 10_000)).toBe(true);
    expect(failsFinalLatency(row(), undefined)).toBe(false);
  });
  it('names the row, its p95 and the bound', () => {
    expect(finalLatencyLine(row(), 500)).toBe('stt-b under clean: final latency p95 700 ms exceeds --max-final-latency 500 ms');
    expect(finalLatencyLine(row({ final_latency_ms: null }), 500)).toBe('stt-b under clean: final latency p95 n/a (no final result) exceeds --max-final-latency 500 ms');
  });
});
