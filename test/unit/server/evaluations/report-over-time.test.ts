import { describe, expect, it } from 'vitest';
import { renderEvaluationReport } from '../../../../src/server/features/evaluations/report/html.js';
import { costPoints } from '../../../../src/server/features/evaluations/report/over-time.js';
import type { EvaluationCompare } from '../../../../src/shared/schemas/evaluations.js';
import { fixtureReport } from './report-fixture.js';

const generatedAt = new Date('2026-11-24T03:00:00Z');

const baseline = (evaluationId: string): EvaluationCompare => ({
  evaluation_id: evaluationId,
  baseline_id: 'ev_monday',
  matched_utterances: 16,
  changed_setup: ['stt-b model nova-2 → nova-3', 'voxctl <0.1.0> → "0.2.0" & more'],
  rows: [
    { provider: 'stt-b', condition: 'clean', group: 'all', utterances: 8, speakers: 6, attempted: 8, failed_requests: 0, wer_baseline: 0.05, wer: 0.15, difference: 0.1, ci95: [0.05, 0.15], p_worse: 1, verdict: 'regressed' },
    { provider: 'stt-b', condition: 'clean', group: 'flite', utterances: 4, speakers: 3, attempted: 4, failed_requests: 0, wer_baseline: 0.05, wer: 0.15, difference: 0.1, ci95: [0.05, 0.15], p_worse: 1, verdict: 'regressed' },
    { provider: 'local-sphinx', condition: 'clean', group: 'all', utterances: 8, speakers: 6, attempted: 8, failed_requests: 0, wer_baseline: 0.4, wer: 0.3, difference: -0.1, ci95: [-0.2, -0.02], p_worse: 0, verdict: 'improved' },
  ],
});

describe('report sections over time and cost', () => {
  it('plots WER against list price per audio hour for priced providers, naming the unpriced', () => {
    const input = fixtureReport();
    const page = renderEvaluationReport({ ...input, generatedAt, prices: { 'stt-b': 0.0043, 'local-sphinx': null } });
    expect(page).toContain('id="cost"');
    expect(page).toContain('aria-label="WER against list price per audio hour"');
    expect(page).toContain('Not priced: local-sphinx.');
    // $0.0043 a minute is $0.258 an audio hour, written per hour like every cost of the page.
    expect(page).toMatch(/stt-b · clean: WER [\d.]+% at \$0\.26\/h</);
    expect(page).not.toMatch(/\sstyle=/i);
    const points = costPoints(input.evaluation.summary!, { 'stt-b': 0.0043 }, new Map());
    expect(points.every((p) => p.provider === 'stt-b' && p.usdPerHour === 0.0043 * 60)).toBe(true);
    expect(points).toHaveLength(input.evaluation.conditions.length);
  });

  it('without prices says how to add one', () => {
    const page = renderEvaluationReport({ ...fixtureReport(), generatedAt });
    expect(page).toContain('id="no-cost"');
    expect(page).toContain('price_per_minute_usd');
  });

  it('shows the change against the baseline with interval and verdict, the setup changes escaped', () => {
    const input = fixtureReport();
    input.evaluation.baseline_id = 'ev_monday';
    const page = renderEvaluationReport({ ...input, generatedAt, baseline: baseline(input.evaluation.evaluation_id) });
    expect(page).toContain('Against baseline ev_monday');
    expect(page).toContain('<li>stt-b model nova-2 → nova-3</li>');
    expect(page).toContain('voxctl &#60;0.1.0&#62; → &#34;0.2.0&#34; &#38; more');
    expect(page).toContain('<td class="regressed">regressed</td>');
    expect(page).toContain('<td class="improved">improved</td>');
    expect(page).toContain('0.0500 – 0.1500');
    // Group rows stay in the API and CLI; the report's section is per provider (group all).
    expect(page.match(/<tr><td>stt-b<\/td><td>clean<\/td><td class="num">8<\/td>/g)).toHaveLength(1);
    expect(page).toContain('aria-label="Change in WER against the baseline"');
    expect(page).not.toMatch(/\sstyle=/i);
  });

  it('a baseline that cannot be compared yet is said so; no baseline, no section', () => {
    const input = fixtureReport();
    expect(renderEvaluationReport({ ...input, generatedAt })).not.toContain('id="baseline"');
    input.evaluation.baseline_id = 'ev_monday';
    expect(renderEvaluationReport({ ...input, generatedAt })).toContain('No comparison yet');
  });
});
