/**
 * CI outputs of evaluations (DESIGN §11.5): JUnit XML that Jenkins, GitLab and GitHub test reporters read,
 * a Markdown summary table, and the GitHub Actions job summary. The XML is built with xmlbuilder2 — a
 * provider or group name holding `<`, `&` or `"` must come out escaped, which string concatenation gets
 * wrong. Loaded only by the commands that write these files.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { create } from 'xmlbuilder2';
import type { EvaluationCompare, EvaluationDetail } from '../../shared/schemas/evaluations.js';
import { markdownText, xmlText } from '../core/safe-text.js';
import { anyGate, compareGateFailures, summaryGateFailures, type EvaluationGates, type GateFailure, type GateFailureType } from '../../shared/evaluation-gates.js';

/** One `<testcase>`: a provider × condition × group and the gate failures it met. */
export interface CiCase {
  provider: string;
  condition: string;
  group: string;
  /** p50 latency in seconds; null when nothing was transcribed. */
  timeSeconds: number | null;
  failures: { type: GateFailureType; message: string }[];
}

/** The gates a run is checked against (DESIGN §15): a gate is on only when its flag is given. */
export type CiGates = EvaluationGates;

const f4 = (x: number | null) => (x === null ? 'n/a' : x.toFixed(4));
const signed = (x: number) => (x > 0 ? '+' : '') + x.toFixed(4);

/**
 * The test cases of a run: one per summary row of group `all`, and one per compare row (a compare row of
 * group `all` joins the summary row's case). Time is the provider's p50 latency for that row.
 */
export function ciCases(input: {
  summary?: EvaluationDetail['summary'];
  compare?: EvaluationCompare;
  gates: CiGates;
  /** Summary rows to take the latencies from when `summary` is not given (a comparison's new run). */
  latencyFrom?: EvaluationDetail['summary'];
}): CiCase[] {
  const cases = new Map<string, CiCase>();
  const keyOf = (r: { provider: string; condition: string; group: string }) => JSON.stringify([r.provider, r.condition, r.group]);
  const latency = new Map((input.summary ?? input.latencyFrom ?? []).map((r) => [keyOf(r), r.latency_ms.p50 === null ? null : r.latency_ms.p50 / 1000]));
  const caseOf = (r: { provider: string; condition: string; group: string }): CiCase => {
    let c = cases.get(keyOf(r));
    if (!c) cases.set(keyOf(r), (c = { provider: r.provider, condition: r.condition, group: r.group, timeSeconds: latency.get(keyOf(r)) ?? null, failures: [] }));
    return c;
  };
  const add = (f: GateFailure) => {
    const c = caseOf(f);
    // A row's failed requests are one failure even when its summary and compare rows both carry them.
    if (!c.failures.some((x) => x.type === f.type && x.message === f.message)) c.failures.push({ type: f.type, message: f.message });
  };
  for (const r of input.summary ?? []) if (r.group === 'all') caseOf(r);
  summaryGateFailures(input.summary ?? [], input.gates).forEach(add);
  for (const r of input.compare?.rows ?? []) caseOf(r);
  if (input.compare) compareGateFailures(input.compare.rows, input.gates, input.summary ?? input.latencyFrom).forEach(add);
  // A comparison alone: the new run's failed requests fail its gates too (a provider whose every request
  // failed matched nothing and has no compare row), so they are cases here as they are on stderr.
  if (!input.summary) newRunFailures(input.latencyFrom, input.gates).forEach(add);
  return [...cases.values()];
}

/** The failed-requests failures of a comparison's new run (its summary rows), when any gate is on. */
function newRunFailures(summary: EvaluationDetail['summary'] | undefined, gates: CiGates): GateFailure[] {
  if (!summary || !anyGate(gates)) return [];
  return summaryGateFailures(summary, { maxFailureRate: gates.maxFailureRate ?? 0 });
}

/**
 * The order a case's failures are written in: the gate the case is about first, failed requests (which
 * come with every failed stream, §15.3) last.
 */
const FAILURE_RANK: Record<GateFailureType, number> = { 'max-regression': 0, inconclusive: 1, 'not-compared': 2, 'max-wer': 3, 'max-der': 4, 'max-final-latency': 5, probes: 6, 'failed-requests': 7 };

const seconds = (x: number) => x.toFixed(3);
/** Attributes with the characters XML 1.0 forbids dropped (DESIGN §17.6): every value of the document goes through here or `xmlText`. */
const xmlAttrs = (attrs: Record<string, string>) => Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, xmlText(v)]));

/** The JUnit XML of one evaluation: `<testsuites>` holding one `<testsuite name="voxctl eval {id}">`. */
export function junitXml(input: { evaluationId: string; cases: readonly CiCase[]; timestamp: Date }): string {
  const failures = input.cases.filter((c) => c.failures.length > 0).length;
  const total = input.cases.reduce((t, c) => t + (c.timeSeconds ?? 0), 0);
  const counts = { tests: String(input.cases.length), failures: String(failures), errors: '0', skipped: '0', time: seconds(total) };
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const suites = doc.ele('testsuites', xmlAttrs({ name: 'voxctl', ...counts }));
  const suite = suites.ele(
    'testsuite',
    xmlAttrs({
      name: `voxctl eval ${input.evaluationId}`,
      ...counts,
      timestamp: input.timestamp.toISOString().replace(/\.\d+Z$/, ''),
    }),
  );
  for (const c of input.cases) {
    const test = suite.ele('testcase', xmlAttrs({ classname: c.provider, name: `${c.condition} / ${c.group}`, time: seconds(c.timeSeconds ?? 0) }));
    // One <failure> per gate the case fails, each with its own type (DESIGN §15: `inconclusive`,
    // `failed-requests`, …) — a reader looking for one type finds it whatever else the row failed.
    const types = [...new Set(c.failures.map((x) => x.type))].sort((a, b) => FAILURE_RANK[a] - FAILURE_RANK[b]);
    for (const type of types) {
      const of = c.failures.filter((x) => x.type === type);
      const message = of.map((x) => x.message).join('; ');
      test.ele('failure', xmlAttrs({ message, type })).txt(xmlText(message));
    }
  }
  return doc.end({ prettyPrint: true }) + '\n';
}

/** A Markdown table cell or heading text: `<`, `>`, pipes and backticks escaped, line breaks flattened (DESIGN §17.6). */
const cell = (v: string | number | null | undefined) => (v === null || v === undefined ? '—' : markdownText(String(v)));
const table = (head: string[], rows: (string | number | null)[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => ' --- |').join('')}`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
/** A compare row's verdict as the job summary shows it (DESIGN §15.1): ✅ only where no regression is possible. */
const verdictMark = (verdict: string) => (verdict === 'regressed' ? '❌' : verdict === 'inconclusive' ? '⚠️' : '✅');

/**
 * The mark of an evaluation's row: ❌ when it fails a gate or its comparison with the baseline says
 * `regressed`, ⚠️ when that comparison is `inconclusive`, ✅ otherwise (DESIGN §15.1); none when neither a
 * gate nor a baseline judges it.
 */
function rowMark(failed: boolean, verdict: string | undefined, judged: boolean): string {
  if (failed || verdict === 'regressed') return '❌';
  if (verdict === 'inconclusive') return '⚠️';
  return judged ? '✅' : '';
}

/**
 * The Markdown summary of an evaluation (group `all` rows), and of its comparison with a baseline when
 * given; `newRun` is the summary of a comparison's new run when the evaluation itself is not shown (its
 * failed requests fail the gates).
 */
export function markdownSummary(input: { evaluation?: EvaluationDetail; compare?: EvaluationCompare; newRun?: EvaluationDetail['summary']; gates: CiGates }): string {
  const parts: string[] = [];
  const ev = input.evaluation;
  if (ev) {
    parts.push(`### voxctl eval ${cell(ev.evaluation_id)}${ev.name ? ` — ${cell(ev.name)}` : ''}`, '', `Status **${ev.status}**, ${ev.completed_utterances}/${ev.total_utterances} utterances, normaliser ${cell(ev.normalizer.name)} v${ev.normalizer.version}.`, '');
    const rows = (ev.summary ?? []).filter((r) => r.group === 'all');
    const streamed = ev.mode === 'streaming';
    const gated = anyGate(input.gates);
    const keyOf = (r: { provider: string; condition: string }) => JSON.stringify([r.provider, r.condition]);
    const compared = (input.compare?.rows ?? []).filter((r) => r.group === 'all');
    const failing = new Set([...summaryGateFailures(rows, input.gates), ...(input.compare ? compareGateFailures(compared, input.gates, rows) : [])].map(keyOf));
    const verdicts = new Map(compared.map((r) => [keyOf(r), r.verdict]));
    const latency = (p: number | null) => (p === null ? 'timeout' : p);
    if (rows.length) {
      parts.push(
        table(
          ['', 'provider', 'condition', 'WER', '95% CI', 'CER', 'p50 ms', 'audio s', 'cost USD', 'RTFx', 'failed', ...(streamed ? ['final p50 / p95 ms', 'streams failed'] : [])],
          rows.map((r) => [
            rowMark(failing.has(keyOf(r)), verdicts.get(keyOf(r)), gated || compared.length > 0),
            r.provider,
            r.condition,
            f4(r.wer),
            r.wer_ci95 ? `${f4(r.wer_ci95[0])}–${f4(r.wer_ci95[1])}` : null,
            f4(r.cer),
            r.latency_ms.p50,
            r.audio_seconds,
            r.cost_usd,
            r.rtfx,
            r.failed_requests ? `${r.failed_requests} of ${r.attempted}` : 0,
            ...(streamed ? [r.final_latency_ms ? `${latency(r.final_latency_ms.p50)} / ${latency(r.final_latency_ms.p95)}` : null, r.streams_failed ?? 0] : []),
          ]),
        ),
        '',
      );
    }
  }
  const cmp = input.compare;
  if (cmp) {
    parts.push(`### ${cell(cmp.evaluation_id)} against baseline ${cell(cmp.baseline_id)}`, '', `${cmp.matched_utterances} matched utterances.`, '');
    if (cmp.changed_setup.length) parts.push('Changed setup:', '', ...cmp.changed_setup.map((c) => `- ${cell(c)}`), '');
    parts.push(
      table(
        ['', 'provider', 'condition', 'group', 'utterances', 'speakers', 'WER baseline', 'WER', 'difference', '95% CI', 'P(worse)', 'verdict'],
        cmp.rows.map((r) => [
          verdictMark(r.verdict),
          r.provider,
          r.condition,
          r.group,
          r.utterances,
          r.speakers,
          f4(r.wer_baseline),
          f4(r.wer),
          signed(r.difference),
          `${f4(r.ci95[0])}–${f4(r.ci95[1])}`,
          r.p_worse.toFixed(3),
          r.verdict,
        ]),
      ),
      '',
    );
    // What the regression gate could not measure: the new run's rows without a compare row.
    const newRun = input.evaluation?.summary ?? input.newRun;
    const notCompared = newRun ? compareGateFailures(cmp.rows, input.gates, newRun).filter((f) => f.type === 'not-compared') : [];
    if (notCompared.length) parts.push('Not compared with the baseline:', '', ...notCompared.map((f) => `- ❌ ${cell(f.line)}`), '');
    const failedRequests = input.evaluation ? [] : newRunFailures(input.newRun, input.gates);
    if (failedRequests.length) parts.push('Failed requests in the new run:', '', ...failedRequests.map((f) => `- ❌ ${cell(f.line)}`), '');
  }
  return parts.join('\n') + '\n';
}

/** Where the CI outputs go: `--junit`, `--markdown`, and the job summary file when GitHub sets one. */
export interface CiTargets {
  junit?: string;
  markdown?: string;
  stepSummary?: string;
}

/**
 * Writes the requested CI files (`--junit` and `--markdown` are replaced, they are this run's outputs)
 * and appends the Markdown to the job summary, whose earlier steps' content must stay.
 */
export function writeCiOutputs(targets: CiTargets, content: { evaluationId: string; cases: readonly CiCase[]; markdown: string; now: Date }): void {
  if (targets.junit) writeFileSync(targets.junit, junitXml({ evaluationId: content.evaluationId, cases: content.cases, timestamp: content.now }));
  if (targets.markdown) writeFileSync(targets.markdown, content.markdown);
  // A blank line first: the previous step's Markdown may not end with one, and a heading must start a block.
  if (targets.stepSummary) appendFileSync(targets.stepSummary, `\n${content.markdown}`);
}
