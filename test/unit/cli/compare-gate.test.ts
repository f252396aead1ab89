import { describe, expect, it } from 'vitest';
import { compareGate } from '../../../src/cli/eval/compare.js';
import type { CliError } from '../../../src/cli/core/errors.js';
import type { EvaluationCompare, EvaluationSummaryRow } from '../../../src/shared/schemas/evaluations.js';

// `eval compare NEW BASELINE` with a gate (DESIGN §15.2): a provider whose every request failed in the new run
// matched nothing, so it has no compare row — its failed requests still fail the gate, read from the new
// run's summary, never a silent pass.
const compare: EvaluationCompare = { evaluation_id: 'ev_new', baseline_id: 'ev_old', matched_utterances: 4, changed_setup: [], rows: [] };
const row = (over: Partial<EvaluationSummaryRow>): EvaluationSummaryRow =>
  ({ provider: 'stt-c', condition: 'clean', group: 'all', utterances: 0, attempted: 2, failed_requests: 2, wer: null, latency_ms: { p50: null, p95: null }, ...over }) as EvaluationSummaryRow;

const thrown = (fn: () => void) => {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e as CliError;
  }
};

describe('the gate of eval compare', () => {
  it('fails a provider that matched nothing because every request failed: not compared, and its failed requests', () => {
    const e = thrown(() => compareGate(compare, { maxRegression: 0 }, [row({})]));
    expect(e?.exitCode).toBe(7);
    expect(e?.message).toContain('stt-c under clean: 2 of 2 requests failed');
    expect(e?.message).toContain('1 provider/condition row(s) were not compared with ev_old: --max-regression 0 cannot pass what the comparison did not measure:\n  stt-c under clean: no utterance matched the baseline, so no regression was measured');
  });

  it('fails a provider the baseline did not have (DESIGN §15: what was not measured never passes)', () => {
    const e = thrown(() => compareGate(compare, { maxRegression: 0.02 }, [row({ provider: 'stt-new', utterances: 4, failed_requests: 0, wer: 0.1 })]));
    expect(e?.exitCode).toBe(7);
    expect(e?.code).toBe('regression_gate_exceeded');
    expect(e?.message).toContain('stt-new under clean: no utterance matched the baseline, so no regression was measured');
    expect(e?.message).not.toContain('requests failed');
  });

  it('passes a compared row within --max-failure-rate, and without a summary judges the compare rows alone', () => {
    const compared: EvaluationCompare = {
      ...compare,
      rows: [{ provider: 'stt-c', condition: 'clean', group: 'all', utterances: 2, speakers: 6, wer_baseline: 0.1, wer: 0.1, difference: 0, ci95: [-0.01, 0.01], p_worse: 0.4, verdict: 'no_change', attempted: 4, failed_requests: 2 }],
    };
    expect(thrown(() => compareGate(compared, { maxRegression: 0, maxFailureRate: 1 }, [row({ utterances: 2, attempted: 4 })]))).toBeUndefined();
    expect(thrown(() => compareGate(compared, { maxRegression: 0, maxFailureRate: 0.5 }, [row({ utterances: 2, attempted: 4 })]))).toBeUndefined();
    expect(thrown(() => compareGate(compare, { maxRegression: 0 }))).toBeUndefined();
  });
});
