import { describe, expect, it } from 'vitest';
import { conditionVerdicts, costPerHour, sourceWords, verdictCaveats, type VerdictContext } from '../../../../src/server/features/evaluations/report/verdict.js';
import type { EvaluationComparison, EvaluationDetail, EvaluationSummaryRow } from '../../../../src/shared/schemas/evaluations.js';
import { fixtureReport } from './report-fixture.js';

/** A group-`all` summary row with only what the verdict reads set. */
function row(provider: string, condition: string, wer: number | null, extra: Partial<EvaluationSummaryRow> = {}): EvaluationSummaryRow {
  return {
    provider,
    condition,
    group: 'all',
    utterances: 20,
    speakers: 8,
    reference_words: 200,
    substitutions: 0,
    deletions: 0,
    insertions: 0,
    wer,
    wer_ci95: wer === null ? null : [Math.max(0, wer - 0.05), wer + 0.05],
    cer: null,
    latency_ms: { p50: 100, p95: 200 },
    attempted: 20,
    failed_requests: 0,
    audio_seconds: 50,
    cost_usd: null,
    rtfx: null,
    ...extra,
  };
}

function comparison(a: string, b: string, condition: string, difference: number, ci95: [number, number], speakers: number, verdict: EvaluationComparison['verdict']): EvaluationComparison {
  return { condition, group: 'all', a, b, wer_a: null, wer_b: null, difference, ci95, p_a_better: null, p_equal: 0, speakers, verdict };
}

const ctx: VerdictContext = { label: (p) => `${p} · label`, adapter: (p) => (p === 'local-sphinx' ? 'local-sphinx' : 'deepgram'), prices: {} };

describe('the verdict of the report', () => {
  it('picks the lowest WER of group all per condition and turns the comparison to read best − runner-up', () => {
    const ev = {
      conditions: ['clean', 'telephone'],
      summary: [row('stt-a', 'clean', 0.2), row('stt-b', 'clean', 0.1), row('stt-c', 'clean', 0.3), row('stt-a', 'telephone', 0.4), row('stt-b', 'telephone', 0.5), row('stt-c', 'telephone', null)],
      comparisons: [
        // a − b with a = stt-a: stt-b (best) is better, so a's interval lies above 0.
        comparison('stt-a', 'stt-b', 'clean', 0.1, [0.04, 0.16], 8, 'b_better'),
        comparison('stt-a', 'stt-b', 'telephone', -0.1, [-0.2, 0.01], 8, 'no_difference'),
      ],
    };
    const [clean, telephone] = conditionVerdicts(ev, { 'stt-b': 0.0043 });
    expect(clean).toMatchObject({ condition: 'clean', best: { provider: 'stt-b', wer: 0.1 }, runnerUp: { provider: 'stt-a' }, difference: -0.1, ci95: [-0.16, -0.04], outcome: 'best_better' });
    expect(clean!.best.usdPerHour).toBeCloseTo(0.258, 9);
    expect(clean!.runnerUp!.usdPerHour).toBeNull();
    // A provider without a WER (every request failed) is not ranked.
    expect(telephone).toMatchObject({ best: { provider: 'stt-a' }, runnerUp: { provider: 'stt-b' }, difference: -0.1, ci95: [-0.2, 0.01], outcome: 'no_difference' });
  });

  it('is inconclusive under 5 speakers whatever the interval; rows stored before verdicts are judged from speakers', () => {
    const summary = [row('stt-a', 'clean', 0.1, { speakers: 3 }), row('stt-b', 'clean', 0.3, { speakers: 3 })];
    const stored = comparison('stt-a', 'stt-b', 'clean', -0.2, [-0.3, -0.1], 3, 'inconclusive');
    expect(conditionVerdicts({ conditions: ['clean'], summary, comparisons: [stored] })[0]).toMatchObject({ outcome: 'inconclusive', speakers: 3, ci95: [-0.3, -0.1] });
    const { speakers: _s, verdict: _v, ...old } = stored;
    expect(conditionVerdicts({ conditions: ['clean'], summary, comparisons: [old as EvaluationComparison] })[0]).toMatchObject({ outcome: 'inconclusive', speakers: 3 });
    const enough = summary.map((r) => ({ ...r, speakers: 6 }));
    expect(conditionVerdicts({ conditions: ['clean'], summary: enough, comparisons: [old as EvaluationComparison] })[0]).toMatchObject({ outcome: 'best_better', speakers: 6 });
    // One provider: nothing to compare; no WER at all: no verdict.
    expect(conditionVerdicts({ conditions: ['clean'], summary: [summary[0]!], comparisons: [] })[0]).toMatchObject({ runnerUp: null, outcome: 'none' });
    expect(conditionVerdicts({ conditions: ['clean'], summary: [row('stt-a', 'clean', null)], comparisons: [] })).toEqual([]);
  });

  it('prices an audio hour from the list price, else from what the row cost', () => {
    expect(costPerHour(row('stt-b', 'clean', 0.1), { 'stt-b': 0.006 })).toBeCloseTo(0.36, 9);
    expect(costPerHour(row('stt-b', 'clean', 0.1, { cost_usd: 0.005, audio_seconds: 60 }))).toBeCloseTo(0.3, 9);
    expect(costPerHour(row('stt-b', 'clean', 0.1), { 'stt-b': null })).toBeNull();
  });

  it('states every caveat that applies, one sentence each, in the words of the source', () => {
    const base = fixtureReport().evaluation;
    const ev: EvaluationDetail = {
      ...base,
      summary: [
        row('local-sphinx', 'telephone', 0.9, { failed_requests: 2, attempted: 20 }),
        row('stt-b', 'telephone', 0.2, { streams_failed: 1, failed_requests: 1, attempted: 20 }),
        row('stt-b', 'clean', 0.1, { failed_requests: 3, attempted: 20 }),
        row('local-sphinx', 'clean', 0.3),
      ],
      comparisons: [comparison('local-sphinx', 'stt-b', 'telephone', 0.7, [0.5, 0.9], 4, 'inconclusive'), comparison('local-sphinx', 'stt-b', 'clean', 0.2, [0.1, 0.3], 9, 'b_better')],
      conditions: ['clean', 'telephone'],
      ...{ event_loop_lag_ms: { p50: 3, p99: 75.4 } },
    };
    const caveats = verdictCaveats(ev, conditionVerdicts(ev), ctx);
    expect(caveats.map((c) => c.kind)).toEqual(['few-speakers', 'failed-requests', 'failed-streams', 'event-loop-lag', 'narrowband']);
    expect(caveats[0]!.text).toContain('only 4 synthetic voices spoke (fewer than 5)');
    expect(caveats[0]!.text).toContain('inconclusive');
    expect(caveats[1]!.text).toBe(
      'Failed requests: local-sphinx · label failed 2 of 20 under telephone; stt-b · label failed 1 of 20 under telephone and 3 of 20 under clean — a WER covers only the requests answered, so a provider that fails often can look better than it is.',
    );
    expect(caveats[2]!.text).toMatch(/^Failed streams: 1 of 20 streams under telephone to stt-b · label never finished/);
    expect(caveats[3]!.text).toMatch(/^Latencies include up to 75 ms of the service's own delay/);
    expect(caveats[4]!.text).toMatch(/^local-sphinx · label hears telephone audio through a 16 kHz wideband model .* not about the synthetic voices\.$/);
    for (const c of caveats) expect(c.text.match(/[.!?](\s|$)/g), c.text).toHaveLength(1);

    // A recorded corpus, enough speakers, nothing failed, a quiet event loop, no telephone: no caveat.
    const quiet: EvaluationDetail = {
      ...ev,
      corpus_id: 'cor_1',
      conditions: ['clean'],
      summary: [row('stt-b', 'clean', 0.1), row('local-sphinx', 'clean', 0.3)],
      comparisons: [comparison('local-sphinx', 'stt-b', 'clean', 0.2, [0.1, 0.3], 9, 'b_better')],
      ...{ event_loop_lag_ms: { p50: 3, p99: 50 } },
    };
    expect(verdictCaveats(quiet, conditionVerdicts(quiet), ctx)).toEqual([]);
    const few = { ...quiet, comparisons: [comparison('local-sphinx', 'stt-b', 'clean', 0.2, [0.1, 0.3], 2, 'inconclusive')] };
    expect(verdictCaveats(few, conditionVerdicts(few), ctx)[0]!.text).toContain('the recordings come from only 2 speakers');
    expect(sourceWords(quiet)).toEqual({ corpus: true, plural: 'recordings', singular: 'recording' });
  });
});
