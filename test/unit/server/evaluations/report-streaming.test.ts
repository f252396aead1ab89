/**
 * The report's streaming panel puts an interval on each median final latency. A failed stream counts as
 * +∞ there as in the row's percentiles (DESIGN §15.3): an interval it reaches ends in `timeout`, never in
 * a finite figure measured over the streams that happened to finish.
 */
import { describe, expect, it } from 'vitest';
import { streamingPanelRows } from '../../../../src/server/features/evaluations/report/streaming.js';
import type { EvaluationSummaryRow, EvaluationUtterance } from '../../../../src/shared/schemas/evaluations.js';

const utterance = (speaker: number, final: number | null, error: string | null = null): EvaluationUtterance =>
  ({
    text_index: 0,
    speaker_id: `spk_${speaker}`,
    group: 'all',
    condition: 'clean',
    provider: 'stt-b',
    final_latency_ms: final,
    error: error === null ? null : { code: error, message: error },
  }) as unknown as EvaluationUtterance;

const evaluation = (utterances: EvaluationUtterance[]) => ({
  summary: [{ provider: 'stt-b', condition: 'clean', group: 'all' } as EvaluationSummaryRow],
  providers: ['stt-b'],
  conditions: ['clean'],
  seed: 3,
  utterances,
});

describe('streaming panel: the interval of the median final latency', () => {
  it('over finished streams only when none failed', () => {
    const us = [0, 1, 2, 3, 4, 5].map((s) => utterance(s, 500 + s * 10));
    const [row] = streamingPanelRows(evaluation(us), us);
    expect(row!.finalMedianCi![0]).toBeGreaterThanOrEqual(500);
    expect(row!.finalMedianCi![1]).toBeLessThanOrEqual(550);
  });

  it('reaches +∞ when failed streams can be the median, and leaves syntheses that failed out', () => {
    // Three of six streams stalled: a draw of speakers with more failures than finishes has a median of +∞.
    const us = [utterance(0, 500), utterance(1, 510), utterance(2, 520), utterance(3, null, 'timeout'), utterance(4, null, 'timeout'), utterance(5, null, 'upstream_error')];
    const [row] = streamingPanelRows(evaluation(us), us);
    expect(row!.finalMedianCi![1]).toBe(Infinity);
    expect(row!.finals).toEqual([500, 510, 520]);
    // The same streams, the failures being syntheses that never streamed: nothing reaches +∞.
    const synth = us.map((u) => (u.error ? { ...u, error: { code: 'synthesis_failed', message: 'x' } } : u));
    expect(Number.isFinite(streamingPanelRows(evaluation(synth), synth)[0]!.finalMedianCi![1])).toBe(true);
  });
});
