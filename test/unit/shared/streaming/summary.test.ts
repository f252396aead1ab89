import { describe, expect, it } from 'vitest';
import { exceedsFinalLatency, failsFinalLatency, finalLatencyLine, streamingSummary } from '../../../../src/shared/streaming/summary.js';

describe('streamingSummary', () => {
  it('percentiles over the streams that finished and the failed ones as +∞; a percentile that reaches none of them is a number', () => {
    const rows = [
      ...Array.from({ length: 100 }, (_, i) => ({ first_partial_ms: 200 + i, final_latency_ms: 100 + 2 * i, revisions: i % 3 === 0 ? 1 : 0, early_words: i === 5 ? 2 : 0 })),
      { first_partial_ms: null, final_latency_ms: null, revisions: 0, early_words: 0 },
      { first_partial_ms: 9999, final_latency_ms: null, revisions: 50, early_words: 50, failed: true },
    ];
    const s = streamingSummary(rows);
    // 101 values, the last +∞: p50, p95 and p99 land exactly on finite order statistics.
    expect(s.first_partial_ms).toEqual({ p50: 250, p95: 295 });
    expect(s.final_latency_ms).toEqual({ p50: 200, p95: 290, p99: 298 });
    expect(s.revisions_per_utterance).toBe(0.34); // 34 of 101 streams that finished
    expect(s.early_words).toBe(2);
    expect(s.streams_failed).toBe(1);
    expect(exceedsFinalLatency(s, 290)).toBe(false);
    expect(exceedsFinalLatency(s, 289)).toBe(true);
  });

  it('a stalled stream is not left out: 1 of 4 timed out, p95 and p99 are timeouts and the gate fails (DESIGN §15.3)', () => {
    const ok = (ms: number) => ({ first_partial_ms: 100, final_latency_ms: ms, revisions: 0, early_words: 0 });
    const s = streamingSummary([ok(300), ok(400), ok(500), { first_partial_ms: null, final_latency_ms: null, revisions: 0, early_words: 0, failed: true }]);
    expect(s.final_latency_ms).toEqual({ p50: 450, p95: null, p99: null });
    expect(s.first_partial_ms).toEqual({ p50: 100, p95: null });
    expect(s.streams_failed).toBe(1);
    expect(failsFinalLatency({ group: 'all', ...s }, 5000)).toBe(true);
    expect(finalLatencyLine({ provider: 'stt-b', condition: 'clean', ...s }, 5000)).toBe('stt-b under clean: final latency p95 timeout exceeds --max-final-latency 5000 ms (1 stream failed)');
  });

  it('every stream failed: every percentile a timeout, and the gate fails at any bound', () => {
    const s = streamingSummary([{ first_partial_ms: null, final_latency_ms: null, revisions: 0, early_words: 0, failed: true }]);
    expect(s).toEqual({ first_partial_ms: { p50: null, p95: null }, final_latency_ms: { p50: null, p95: null, p99: null }, revisions_per_utterance: 0, early_words: 0, streams_failed: 1 });
    expect(exceedsFinalLatency(s, 1e9)).toBe(true);
  });

  it('no streams at all: no percentiles', () => {
    expect(streamingSummary([])).toEqual({ first_partial_ms: null, final_latency_ms: null, revisions_per_utterance: 0, early_words: 0, streams_failed: 0 });
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
