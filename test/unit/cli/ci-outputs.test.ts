import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ciCases, junitXml, markdownSummary, writeCiOutputs } from '../../../src/cli/eval/ci-outputs.js';
import type { EvaluationCompare, EvaluationCompareRow, EvaluationSummaryRow } from '../../../src/shared/schemas/evaluations.js';

const HOSTILE_PROVIDER = 'stt-<b>&"co"';
const HOSTILE_GROUP = 'en <GB> & "friends"';

const summaryRow = (over: Partial<EvaluationSummaryRow>): EvaluationSummaryRow => ({
  provider: 'stt-b',
  condition: 'clean',
  group: 'all',
  utterances: 8,
  speakers: 4,
  reference_words: 40,
  substitutions: 2,
  deletions: 0,
  insertions: 0,
  wer: 0.05,
  wer_ci95: [0.02, 0.08],
  cer: 0.01,
  latency_ms: { p50: 1250, p95: 2000 },
  attempted: 8,
  failed_requests: 0,
  audio_seconds: 20,
  cost_usd: 0.001433,
  rtfx: 16,
  ...over,
});

const compareRow = (over: Partial<EvaluationCompareRow>): EvaluationCompareRow => ({
  provider: 'stt-b',
  condition: 'clean',
  group: 'all',
  utterances: 8,
  wer_baseline: 0.05,
  wer: 0.15,
  difference: 0.1,
  ci95: [0.05, 0.15],
  p_worse: 1,
  speakers: 8,
  verdict: 'regressed',
  attempted: 8,
  failed_requests: 0,
  ...over,
});

/** How Jenkins' and GitLab's readers see the file: attributes kept, one array per repeated element. */
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'failure'].includes(name) });

function parseJUnit(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true);
  const doc = parser.parse(xml) as { testsuites: { tests: string; failures: string; errors: string; skipped: string; time: string; testsuite: Record<string, any>[] } }; // eslint-disable-line @typescript-eslint/no-explicit-any
  return doc.testsuites;
}

describe('JUnit XML', () => {
  const summary = [
    summaryRow({}),
    summaryRow({ group: HOSTILE_GROUP, latency_ms: { p50: 900, p95: 1000 } }),
    summaryRow({ provider: HOSTILE_PROVIDER, wer: 0.4, latency_ms: { p50: 300, p95: 400 } }),
    summaryRow({ provider: 'local-sphinx', wer: null, wer_ci95: null, latency_ms: { p50: null, p95: null }, utterances: 0 }),
  ];
  const compare: EvaluationCompare = {
    evaluation_id: 'ev_new',
    baseline_id: 'ev_old',
    matched_utterances: 16,
    changed_setup: ['stt-b model nova-2 → nova-3'],
    rows: [compareRow({}), compareRow({ group: HOSTILE_GROUP, difference: 0.3 }), compareRow({ provider: HOSTILE_PROVIDER, difference: -0.1, ci95: [-0.2, -0.05], p_worse: 0, verdict: 'improved' })],
  };

  it('has the structure JUnit consumers read, names escaped and read back intact', () => {
    const cases = ciCases({ summary, gates: { maxWer: 0.3 } });
    const xml = junitXml({ evaluationId: 'ev_new', cases, timestamp: new Date('2026-11-24T03:00:00Z') });
    expect(xml).toContain('&lt;');
    expect(xml).toContain('&amp;');
    const suites = parseJUnit(xml);
    expect(suites.testsuite).toHaveLength(1);
    const suite = suites.testsuite[0]!;
    expect(suite.name).toBe('voxctl eval ev_new');
    // Only group-`all` summary rows are test cases.
    expect(suite.testcase).toHaveLength(3);
    for (const holder of [suites, suite]) {
      expect(holder).toMatchObject({ tests: '3', failures: '2', errors: '0', skipped: '0' });
      expect(Number(holder.time)).toBeCloseTo(1.25 + 0.3, 3);
    }
    const [b, hostile, sphinx] = suite.testcase;
    expect(b).toMatchObject({ classname: 'stt-b', name: 'clean / all', time: '1.250' });
    expect(b.failure).toBeUndefined();
    expect(hostile).toMatchObject({ classname: HOSTILE_PROVIDER, name: 'clean / all', time: '0.300' });
    expect(hostile.failure).toHaveLength(1);
    expect(hostile.failure[0]).toMatchObject({ type: 'max-wer', message: 'WER 0.4000 exceeds --max-wer 0.3' });
    // Nothing scored fails the gate too.
    expect(sphinx.failure[0].message).toContain('n/a (nothing scored)');
    expect(sphinx.time).toBe('0.000');
  });

  it('a compare row per test case, failures only for group `all` regressed beyond --max-regression', () => {
    const cases = ciCases({ compare, gates: { maxRegression: 0.05 }, latencyFrom: summary });
    const suite = parseJUnit(junitXml({ evaluationId: 'ev_new', cases, timestamp: new Date() })).testsuite[0]!;
    expect(suite.testcase.map((c: { classname: string; name: string }) => [c.classname, c.name])).toEqual([
      ['stt-b', 'clean / all'],
      ['stt-b', `clean / ${HOSTILE_GROUP}`],
      [HOSTILE_PROVIDER, 'clean / all'],
      // The new run's local-sphinx scored nothing, so nothing of it was compared (DESIGN §15).
      ['local-sphinx', 'clean / all'],
    ]);
    expect(suite.failures).toBe('2');
    expect(suite.testcase[3].failure.map((f: { type: string }) => f.type)).toEqual(['not-compared']);
    expect(suite.testcase[0].failure[0].type).toBe('max-regression');
    expect(suite.testcase[0].failure[0].message).toContain('stt-b under clean: WER 0.0500 → 0.1500 (+0.1000');
    // A group row never fails the gate (it is about group `all`), nor does an improvement.
    expect(suite.testcase[1].failure).toBeUndefined();
    expect(suite.testcase[2].failure).toBeUndefined();
    // Time: the new run's p50 of the same row.
    expect(suite.testcase[1].time).toBe('0.900');
  });

  it('a row too few speakers leave undecided fails the regression gate as `inconclusive` (DESIGN §15.1)', () => {
    const rows = [compareRow({ wer_baseline: 0.0947, wer: 0.3263, difference: 0.2316, ci95: [0, 0.2857], p_worse: 0.96, speakers: 3, verdict: 'inconclusive' })];
    const cmp: EvaluationCompare = { ...compare, rows };
    const suite = parseJUnit(junitXml({ evaluationId: 'ev_new', cases: ciCases({ compare: cmp, gates: { maxRegression: 0 } }), timestamp: new Date() })).testsuite[0]!;
    expect(suite.testcase[0].failure[0]).toMatchObject({
      type: 'inconclusive',
      message: 'stt-b under clean: WER 0.0947 → 0.3263 (+0.2316) cannot be ruled out as a regression: only 3 speakers',
    });
    // Within the allowed difference an inconclusive row passes: nothing beyond X was seen.
    expect(ciCases({ compare: cmp, gates: { maxRegression: 0.3 } })[0]!.failures).toEqual([]);
    // ⚠️ in the job summary, never ✅.
    expect(markdownSummary({ compare: cmp, gates: { maxRegression: 0 } })).toMatch(/\| ⚠️ \| stt-b \| clean \| all \| 8 \| 3 \|.*\| inconclusive \|/);
    expect(markdownSummary({ compare: { ...compare, rows: [compareRow({ verdict: 'no_change', ci95: [-0.01, 0.2] })] }, gates: {} })).toContain('| ✅ | stt-b |');
  });

  it('failed requests fail any gate beyond --max-failure-rate, default 0 (DESIGN §15.2)', () => {
    // Half the requests failed; WER on the half answered is fine.
    const rows = [summaryRow({ wer: 0.05, attempted: 8, failed_requests: 4 })];
    const failures = ciCases({ summary: rows, gates: { maxWer: 0.3 } })[0]!.failures;
    expect(failures).toEqual([{ type: 'failed-requests', message: 'stt-b under clean: 4 of 8 requests failed' }]);
    expect(ciCases({ summary: rows, gates: { maxWer: 0.3, maxFailureRate: 0.5 } })[0]!.failures).toEqual([]);
    expect(ciCases({ summary: rows, gates: { maxWer: 0.3, maxFailureRate: 0.49 } })[0]!.failures).toHaveLength(1);
    // No gate flag, no gate: failed requests are shown, not judged.
    expect(ciCases({ summary: rows, gates: {} })[0]!.failures).toEqual([]);
    const suite = parseJUnit(junitXml({ evaluationId: 'ev_1', cases: ciCases({ summary: rows, gates: { maxWer: 0.3 } }), timestamp: new Date() })).testsuite[0]!;
    expect(suite.testcase[0].failure[0].type).toBe('failed-requests');
    // Said once for a row whose summary and compare rows both carry it.
    const both = ciCases({ summary: rows, compare: { ...compare, rows: [compareRow({ verdict: 'no_change', ci95: [-0.01, 0.2], attempted: 8, failed_requests: 4 })] }, gates: { maxRegression: 0 } });
    expect(both[0]!.failures).toEqual([{ type: 'failed-requests', message: 'stt-b under clean: 4 of 8 requests failed' }]);
  });

  it('a row failing two gates has one <failure> per gate, each of its own type (a stalled stream is also a failed request)', () => {
    // Inconclusive and failed requests on one row: both types findable, the gate the row is about first.
    const rows = [compareRow({ difference: 0.1, speakers: 3, verdict: 'inconclusive', attempted: 6, failed_requests: 1 })];
    const cases = ciCases({ compare: { ...compare, rows }, gates: { maxRegression: 0 } });
    const failures = parseJUnit(junitXml({ evaluationId: 'ev_new', cases, timestamp: new Date() })).testsuite[0]!.testcase[0].failure;
    expect(failures.map((f: { type: string }) => f.type)).toEqual(['inconclusive', 'failed-requests']);
    expect(failures[1].message).toBe('stt-b under clean: 1 of 6 requests failed');
    // Still one failing case in the suite's count.
    expect(parseJUnit(junitXml({ evaluationId: 'ev_new', cases, timestamp: new Date() })).testsuite[0]!.failures).toBe('1');
    const stalled = [summaryRow({ attempted: 2, failed_requests: 1, final_latency_ms: { p50: 800, p95: null, p99: null } } as Partial<EvaluationSummaryRow>)];
    const xml = junitXml({ evaluationId: 'ev_s', cases: ciCases({ summary: stalled, gates: { maxFinalLatency: 1500 } }), timestamp: new Date() });
    expect(parseJUnit(xml).testsuite[0]!.testcase[0].failure.map((f: { type: string }) => f.type)).toEqual(['max-final-latency', 'failed-requests']);
    expect(xml).not.toMatch(/type="[^"]*,/);
  });

  it('a comparison alone: the new run whose every request failed is a failing case and a Markdown line, as on stderr (DESIGN §15.2)', () => {
    // stt-c matched nothing (all 6 requests failed): no compare row, only its summary row says so.
    const newRun = [...summary, summaryRow({ provider: 'stt-c', utterances: 0, wer: null, wer_ci95: null, cer: null, attempted: 6, failed_requests: 6 })];
    const cases = ciCases({ compare, gates: { maxRegression: 1 }, latencyFrom: newRun });
    const suite = parseJUnit(junitXml({ evaluationId: 'ev_new', cases, timestamp: new Date() })).testsuite[0]!;
    const c = suite.testcase.find((t: { classname: string }) => t.classname === 'stt-c');
    // Matched nothing: no regression measured either (below), and its failed requests.
    expect(c.failure.map((f: { type: string }) => f.type)).toEqual(['not-compared', 'failed-requests']);
    expect(c.failure[1]).toMatchObject({ type: 'failed-requests', message: 'stt-c under clean: 6 of 6 requests failed' });
    // stt-c, and local-sphinx, which scored nothing in the new run: neither was compared.
    expect(suite.failures).toBe('2');
    expect(markdownSummary({ compare, newRun, gates: { maxRegression: 1 } })).toContain('- ❌ stt-c under clean: 6 of 6 requests failed');
    // No gate, no judgement.
    expect(ciCases({ compare, gates: {}, latencyFrom: newRun }).every((x) => x.failures.length === 0)).toBe(true);
  });

  it('a provider of the new run the baseline did not have fails --max-regression as `not-compared`: no regression was measured (DESIGN §15)', () => {
    const fine = { ...compare, rows: [compareRow({ verdict: 'no_change', difference: 0, wer: 0.05 })] };
    const newRun = [summaryRow({}), summaryRow({ provider: 'stt-new', wer: 0.08 })];
    const suite = parseJUnit(junitXml({ evaluationId: 'ev_new', cases: ciCases({ compare: fine, gates: { maxRegression: 0.02 }, latencyFrom: newRun }), timestamp: new Date() })).testsuite[0]!;
    const added = suite.testcase.find((t: { classname: string }) => t.classname === 'stt-new');
    expect(added.failure).toEqual([
      { type: 'not-compared', message: 'stt-new under clean: no utterance matched the baseline, so no regression was measured: cannot pass --max-regression 0.02', '#text': expect.any(String) },
    ]);
    expect(suite.failures).toBe('1');
    const md = markdownSummary({ compare: fine, newRun, gates: { maxRegression: 0.02 } });
    expect(md).toContain('Not compared with the baseline:\n\n- ❌ stt-new under clean: no utterance matched the baseline, so no regression was measured');
    // In a run shown with its comparison, the row is ❌ in the evaluation table too.
    const evaluation = { evaluation_id: 'ev_new', name: null, status: 'completed', completed_utterances: 16, total_utterances: 16, normalizer: { name: 'basic', version: 2 }, mode: 'batch', summary: newRun } as never;
    expect(markdownSummary({ evaluation, compare: fine, gates: { maxRegression: 0.02 } })).toMatch(/\| ❌ \| stt-new \| clean \|/);
    // Only the regression gate asks for a comparison: --max-wer alone judges the new provider on its own WER.
    expect(ciCases({ compare: fine, gates: { maxWer: 0.5 }, latencyFrom: newRun }).every((x) => x.failures.length === 0)).toBe(true);
  });

  it('the evaluation table marks a row by its comparison too: ❌ regressed, ⚠️ inconclusive, ✅ only when neither (DESIGN §15.1)', () => {
    const evaluation = { evaluation_id: 'ev_new', name: null, status: 'completed', completed_utterances: 8, total_utterances: 8, normalizer: { name: 'basic', version: 2 }, mode: 'batch', summary: [summaryRow({})] } as never;
    const md = (verdict: EvaluationCompareRow['verdict']) => markdownSummary({ evaluation, compare: { ...compare, rows: [compareRow({ verdict, difference: verdict === 'regressed' ? 0.1 : 0, speakers: verdict === 'inconclusive' ? 3 : 8 })] }, gates: { maxRegression: 0.5 } });
    expect(md('regressed')).toMatch(/\| ❌ \| stt-b \| clean \| 0\.0500 \|/);
    expect(md('inconclusive')).toMatch(/\| ⚠️ \| stt-b \| clean \| 0\.0500 \|/);
    expect(md('no_change')).toMatch(/\| ✅ \| stt-b \| clean \| 0\.0500 \|/);
  });

  it('no gate given: no failure whatever the numbers', () => {
    const cases = ciCases({ summary, compare, gates: {} });
    expect(cases.every((c) => c.failures.length === 0)).toBe(true);
    // The summary's and the comparison's `all` rows of one provider and condition are one case.
    expect(cases.filter((c) => c.provider === 'stt-b' && c.group === 'all')).toHaveLength(1);
  });
});

describe('Markdown summary and the GitHub job summary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-ci-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('tables the rows with pipes escaped, and marks gated rows', () => {
    const md = markdownSummary({
      compare: { evaluation_id: 'ev_new', baseline_id: 'ev_old', matched_utterances: 8, changed_setup: ['voxctl 0.1.0 → 0.2.0'], rows: [compareRow({ provider: 'a|b' })] },
      gates: { maxRegression: 0 },
    });
    expect(md).toContain('### ev_new against baseline ev_old');
    expect(md).toContain('- voxctl 0.1.0 → 0.2.0');
    expect(md).toContain('| ❌ | a\\|b | clean | all | 8 | 8 | 0.0500 | 0.1500 | +0.1000 | 0.0500–0.1500 | 1.000 | regressed |');
  });

  it('appends to the job summary file and keeps what earlier steps wrote; --junit and --markdown are written', () => {
    const summaryFile = join(dir, 'step-summary.md');
    writeFileSync(summaryFile, '## Earlier step\n\nkept\n');
    const content = { evaluationId: 'ev_1', cases: [], markdown: '### voxctl eval ev_1\n', now: new Date() };
    writeCiOutputs({ stepSummary: summaryFile, junit: join(dir, 'j.xml'), markdown: join(dir, 's.md') }, content);
    writeCiOutputs({ stepSummary: summaryFile }, content);
    expect(readFileSync(summaryFile, 'utf8')).toBe('## Earlier step\n\nkept\n\n### voxctl eval ev_1\n\n### voxctl eval ev_1\n');
    expect(readFileSync(join(dir, 's.md'), 'utf8')).toBe('### voxctl eval ev_1\n');
    expect(parseJUnit(readFileSync(join(dir, 'j.xml'), 'utf8')).testsuite[0]!.tests).toBe('0');
  });
});
