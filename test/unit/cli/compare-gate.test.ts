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
  it('fails a provider that matched nothing because every request failed', () => {
    const e = thrown(() => compareGate(compare, { maxRegression: 0 }, [row({})]));
    expect(e?.exitCode).toBe(7);
    expect(e?.message).toContain('stt-c under clean: 2 of 2 requests failed');
  });

  it('passes within --max-failure-rate, and without a summary judges the compare rows alone', () => {
    expect(thrown(() => compareGate(compare, { maxRegression: 0, maxFailureRate: 1 }, [row({})]))).toBeUndefined();
    expect(thrown(() => compareGate(compare, { maxRegression: 0 }, [row({ failed_requests: 0 })]))).toBeUndefined();
    expect(thrown(() => compareGate(compare, { maxRegression: 0 }))).toBeUndefined();
  });
});
