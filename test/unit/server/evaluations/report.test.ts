import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { alignmentHtml, renderEvaluationReport } from '../../../../src/server/features/evaluations/report/html.js';
import { REPORT_CSP } from '../../../../src/server/features/evaluations/report/style.js';
import { providerLatencies, reportWerMax, setupFacts, speakerRows, worstFailures } from '../../../../src/server/features/evaluations/report/data.js';
import { verdict } from '../../../../src/shared/comparison-verdict.js';
import { calculateAccuracy } from '../../../../src/shared/accuracy.js';
import { REPORT_STYLE } from '../../../../src/server/features/evaluations/report/style.js';
import { heatColour, ticks } from '../../../../src/server/features/evaluations/report/svg.js';
import type { EvaluationUtterance } from '../../../../src/shared/schemas/evaluations.js';
import { fixtureReport, HOSTILE_TRANSCRIPT } from './report-fixture.js';

const generatedAt = new Date('2026-11-22T18:00:00Z');
const render = (options: Parameters<typeof fixtureReport>[0] = {}) => renderEvaluationReport({ ...fixtureReport(options), generatedAt });

describe('evaluation report page', () => {
  it('is one self-contained page: no script, no external reference, its stylesheet admitted by the CSP hash', () => {
    const page = render();
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/\son\w+=/i);
    expect(page).not.toMatch(/\sstyle=/i);
    // The only src/href besides the data: favicon are links to hear failures (signed audio URLs of this
    // server, followed only when clicked); nothing is fetched from anywhere.
    const refs = [...page.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(refs[0]).toBe('data:,');
    expect(page.match(/\ssrc="/g)).toBeNull();
    for (const r of refs.slice(1)) expect(r).toMatch(/^http:\/\/127\.0\.0\.1\/v1\/audio\/aud_[\w-]+\.wav\?expires=1&#38;sig=x$/);
    expect(page).not.toMatch(/@import|url\(/);
    const hash = createHash('sha256').update(REPORT_STYLE).digest('base64');
    expect(REPORT_CSP).toContain(`style-src 'sha256-${hash}'`);
    expect(REPORT_CSP).toMatch(/^default-src 'none'/);
    expect(page).toContain(`<style>${REPORT_STYLE}</style>`);
    expect(REPORT_STYLE).toContain('@media print');
  });

  it('shows every section with the summary figures written out', () => {
    const { evaluation } = fixtureReport();
    const page = render();
    for (const id of ['setup', 'wer-by-group', 'heat-map', 'latency', 'comparisons-section', 'failures']) expect(page).toContain(`id="${id}"`);
    // One WER chart per condition, a bar per provider × group (all, espeak, flite), each with its tooltip.
    expect(page.match(/<svg class="chart"/g)).toHaveLength(3 + 1);
    const flite = evaluation.summary!.find((r) => r.provider === 'stt-b' && r.condition === 'clean' && r.group === 'flite')!;
    expect(flite.wer).toBe(0);
    expect(page).toContain(`stt-b · flite: WER 0.0% (95% CI 0.0%–0.0%)`);
    // Heat map cells carry their value as text.
    for (const r of evaluation.summary!.filter((x) => x.group === 'all')) {
      expect(page).toContain(`>${(r.wer! * 100).toFixed(1)}%</text>`);
    }
    expect(page).toContain('<dd id="setup-texts">4</dd>');
    expect(page).toContain('4 in 2 engine group(s): espeak (2), flite (2)');
    expect(page).toContain('basic (version 1)');
    expect(page).toContain('<dd id="setup-seed">3</dd>');
    expect(page).toMatch(/Evaluation Flite vs eSpeak/);
  });

  it('escapes names, references and transcripts (user data)', () => {
    const page = render({ hostile: true });
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/<img/i);
    expect(page).not.toContain(HOSTILE_TRANSCRIPT);
    expect(page).toContain('&#60;/title&#62;&#60;script&#62;alert(&#34;name&#34;)&#60;/script&#62;');
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });

  it('names a provider better only when the interval of the difference excludes 0', () => {
    expect(verdict({ a: 'x', b: 'y', ci95: [-0.2, -0.01] })).toBe('x better');
    expect(verdict({ a: 'x', b: 'y', ci95: [0.01, 0.3] })).toBe('y better');
    expect(verdict({ a: 'x', b: 'y', ci95: [-0.1, 0.1] })).toBe('no significant difference');
    expect(verdict({ a: 'x', b: 'y', ci95: [0, 0.1] })).toBe('no significant difference');
    expect(verdict({ a: 'x', b: 'y', ci95: null })).toBe('not enough data');
    const { evaluation } = fixtureReport();
    const page = render();
    for (const c of evaluation.comparisons!) expect(page).toContain(`>${verdict(c)}</td>`);
  });

  it('lists at most 20 determinable failures, worst first, with their word alignment', () => {
    const { evaluation, utterances } = fixtureReport({ hostile: true });
    const failures = worstFailures(evaluation, utterances);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.length).toBeLessThanOrEqual(20);
    expect(failures.every((f) => f.utterance.determinable && (f.utterance.wer ?? 0) > 0)).toBe(true);
    const wers = failures.map((f) => f.utterance.wer!);
    expect([...wers].sort((a, b) => b - a)).toEqual(wers);
    const determinable = utterances.filter((u) => u.determinable).length;
    expect(failures.length).toBe(Math.min(20, determinable));
    expect(failures.every((f) => f.alignment && f.alignment.length > 0)).toBe(true);
    const page = renderEvaluationReport({ evaluation, utterances, generatedAt });
    expect(page.match(/<li><div class="meta">/g)).toHaveLength(failures.length);
  });

  it('marks substitutions, deletions and insertions in an alignment', () => {
    const marks = alignmentHtml([
      { op: 'equal', ref: 'the', hyp: 'the' },
      { op: 'substitute', ref: 'cat', hyp: 'bat' },
      { op: 'delete', ref: 'sat', hyp: null },
      { op: 'insert', ref: null, hyp: '<b>' },
    ])
      .map(String)
      .join('');
    expect(marks).toBe(
      'the <span class="sub" title="substitution"><s>cat</s> <b>bat</b></span> <span class="del" title="deletion">sat</span> <span class="ins" title="insertion">&#60;b&#62;</span> ',
    );
  });

  it('explains the missing parts of a pending, cancelled or empty evaluation', () => {
    const { evaluation, utterances } = fixtureReport();
    const running = { ...evaluation, status: 'processing' as const, progress: 40, completed_utterances: 38, summary: undefined, comparisons: undefined };
    const page = renderEvaluationReport({ evaluation: running, utterances: utterances.slice(0, 38), generatedAt });
    expect(page).toContain('Still running: 38 of 96 utterances done (40%)');
    expect(page).toContain('No summary: the evaluation is processing.');
    expect(page).toContain('id="latency"');

    const empty = { ...evaluation, status: 'pending' as const, progress: 0, completed_utterances: 0, started_at: null, completed_at: null, summary: undefined, comparisons: undefined };
    const blank = renderEvaluationReport({ evaluation: empty, utterances: [], generatedAt });
    expect(blank).toContain('No transcription has run yet.');
    expect(blank).toContain('<dd id="setup-texts">—</dd>');
    expect(blank).toContain('id="no-failures"');

    const cancelled = renderEvaluationReport({ evaluation: { ...running, status: 'cancelled' }, utterances: utterances.slice(0, 38), generatedAt });
    expect(cancelled).toContain('Cancelled after 38 of 96 utterances');
    const failed = renderEvaluationReport({ evaluation: { ...running, status: 'failed', completed_utterances: 0 }, utterances: [], generatedAt });
    expect(failed).toContain('This evaluation failed after 0 of 96 utterances');
    // Partial: the figures are there, with a warning above them.
    const partial = renderEvaluationReport({ evaluation: { ...evaluation, status: 'partial' }, utterances, generatedAt });
    expect(partial).toContain('Partial: some syntheses failed');
    expect(partial).toContain('id="totals"');
    expect(render()).not.toContain('id="state"');

    const single = { ...evaluation, providers: ['local-sphinx'], comparisons: [] };
    const one = renderEvaluationReport({ evaluation: single, utterances: utterances.filter((u) => u.provider === 'local-sphinx').map((u) => ({ ...u, determinable: false })), generatedAt });
    expect(one).toContain('One provider only: nothing to compare.');
    expect(one).toContain('with one provider, none is');
  });

  it('derives setup facts and latency from the utterances, drawing at most 400 dots per provider', () => {
    const { utterances } = fixtureReport();
    expect(setupFacts(utterances)).toEqual({ texts: 4, speakers: 4, groups: [{ group: 'espeak', speakers: 2 }, { group: 'flite', speakers: 2 }] });
    const many: EvaluationUtterance[] = Array.from({ length: 5000 }, (_, i) => ({ ...utterances[0]!, latency_ms: i }));
    const [lat] = providerLatencies(['local-sphinx'], many);
    expect(lat).toMatchObject({ provider: 'local-sphinx', count: 5000, p50: 2500, p95: 4749 });
    expect(lat!.sample).toHaveLength(400);
    expect(lat!.sample[399]).toBeGreaterThan(4900);
  });

  it('draws every WER chart on one axis: the largest WER or interval end of the page', () => {
    const { evaluation } = fixtureReport();
    const page = render();
    const max = reportWerMax(evaluation.summary!);
    const top = ticks(max).at(-1)!;
    const charts = [...page.matchAll(/<svg class="chart" viewBox[^>]*aria-label="WER by[^"]*"[\s\S]*?<\/svg>/g)].map((m) => m[0]);
    expect(charts).toHaveLength(3);
    // Every chart's last tick is the page's top; per condition the WERs differ a lot (clean vs noise).
    for (const chart of charts) {
      const labels = [...chart.matchAll(/<text class="tick"[^>]*>(\d+)%<\/text>/g)].map((m) => Number(m[1]));
      expect(labels.at(-1)).toBe(Math.round(top * 100));
    }
    const perCondition = evaluation.conditions.map((c) => Math.max(...evaluation.summary!.filter((r) => r.condition === c && r.wer !== null).map((r) => Math.max(r.wer!, r.wer_ci95![1]))));
    expect(new Set(perCondition.map((m) => ticks(m).at(-1))).size).toBeGreaterThan(1); // the old per-chart axes differed
    expect(reportWerMax([{ wer: 0.02, wer_ci95: [0.01, 0.03] }])).toBe(0.1);
    expect(reportWerMax([{ wer: 1.2, wer_ci95: [1, 1.45] }, { wer: null, wer_ci95: null }])).toBe(1.45);
  });

  it('labels providers with adapter and model, marks small groups, and compares per group with p_equal', () => {
    const { evaluation } = fixtureReport();
    const page = render();
    expect(page).toContain('<dd id="setup-providers">local-sphinx · en-us, stt-b · deepgram nova-3</dd>');
    expect(page).toContain('<td>stt-b · deepgram nova-3</td>');
    expect(page).toMatch(/<text class="label"[^>]*>stt-b · deepgram nova-3<\/text>/);
    // Both groups have 2 speakers: marked in the charts, the tables and a note.
    expect(page).toMatch(/<text class="label"[^>]*>espeak †<\/text>/);
    expect(page).toContain('id="few-speakers"');
    expect(page).toContain('† fewer than 5 speakers (espeak, flite)');
    for (const id of ['comparisons', 'comparisons-espeak', 'comparisons-flite']) expect(page).toContain(`id="${id}"`);
    expect(page).toContain('<th>P(equal)</th>');
    const flite = evaluation.comparisons!.find((c) => c.group === 'flite' && c.condition === 'clean')!;
    expect(page).toContain(`<td class="num">${flite.p_equal!.toFixed(3)}</td>`);
    expect(verdict({ a: 'x', b: 'y', ci95: [0, 0], p_equal: 1 })).toBe('tie');
    expect(verdict({ a: 'x', b: 'y', ci95: [-0.1, 0], p_equal: 0.4 })).toBe('no significant difference');
  });

  it('has a per-speaker table: the corpus WER of each voice per provider and condition', () => {
    const { evaluation, utterances } = fixtureReport();
    const rows = speakerRows(evaluation, utterances);
    expect(rows).toHaveLength(4 * 3);
    expect(rows[0]).toMatchObject({ speaker: 'spk_espeak_a', group: 'espeak', condition: 'clean' });
    // Recomputed by hand: Σ errors ÷ Σ reference words over the speaker's texts.
    const mine = utterances.filter((u) => u.speaker_id === 'spk_flite_a' && u.condition === 'telephone' && u.provider === 'local-sphinx');
    const errors = mine.reduce((n, u) => n + u.substitutions! + u.deletions! + u.insertions!, 0);
    const words = mine.reduce((n, u) => n + calculateAccuracy(u.reference, u.transcript!).reference_words, 0);
    const row = rows.find((r) => r.speaker === 'spk_flite_a' && r.condition === 'telephone')!;
    expect(row.wer[0]).toBeCloseTo(errors / words, 4);
    const page = render();
    expect(page).toContain('id="per-speaker"');
    expect(page.match(/<tr><td>spk_/g)).toHaveLength(12);
  });

  it('counts reference words with the normaliser version the evaluation recorded (basic v1 joined hyphenated words)', () => {
    const { evaluation, utterances } = fixtureReport();
    const hyphenated = utterances.map((u) => (u.speaker_id === 'spk_flite_a' ? { ...u, reference: 'ill-disposed men' } : u));
    const mine = hyphenated.filter((u) => u.speaker_id === 'spk_flite_a' && u.condition === 'telephone' && u.provider === 'local-sphinx');
    const errors = mine.reduce((n, u) => n + u.substitutions! + u.deletions! + u.insertions!, 0);
    const wer = (version: number) =>
      speakerRows({ ...evaluation, normalizer: { name: 'basic', version } }, hyphenated).find((r) => r.speaker === 'spk_flite_a' && r.condition === 'telephone')!.wer[0];
    expect(wer(1)).toBeCloseTo(errors / (2 * mine.length), 4);
    expect(wer(2)).toBeCloseTo(errors / (3 * mine.length), 4);
  });

  it('links each listed failure to its clip, and marks local-sphinx under telephone with the narrowband caveat', () => {
    const { evaluation, utterances } = fixtureReport();
    const page = renderEvaluationReport({ evaluation, utterances, generatedAt, adapters: { 'local-sphinx': 'local-sphinx', 'stt-b': 'deepgram' } });
    const failures = worstFailures(evaluation, utterances);
    expect(page.match(/<a class="listen" href="[^"]+">hear the clip<\/a>/g)).toHaveLength(failures.length);
    expect(page).toContain(`href="${failures[0]!.utterance.audio_url!.replace(/&/g, '&#38;')}"`);
    expect(page.match(/<tr class="caveat">/g)).toHaveLength(1);
    expect(page).toContain('id="caveat-1"');
    expect(page).toContain('No narrowband (8 kHz) model is packaged for Debian or npm');
  });

  it('draws axes to a round value above the largest interval, and colours WER from green to red', () => {
    expect(ticks(0.37)).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
    expect(ticks(1.3)).toEqual([0, 0.5, 1, 1.5]);
    expect(ticks(2700)).toEqual([0, 1000, 2000, 3000]);
    expect(heatColour(0).fill).toBe('rgb(232,245,233)');
    expect(heatColour(2).fill).toBe('rgb(198,40,40)');
    expect(heatColour(2).ink).toBe('#ffffff');
  });
});
