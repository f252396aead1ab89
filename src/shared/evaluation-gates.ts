/**
 * The CI gates of evaluations (DESIGN §8.7, §11.4, §12.5, §13.2, §15), decided once for the CLI's exit 7
 * and stderr, JUnit failures, Markdown and the job summary. Every gate fails closed: what could not be
 * measured — a row with nothing scored, a percentile that reaches a failed stream, a regression that too
 * few speakers cannot rule out, requests the provider failed — never reads as a pass. Pure, no TypeBox.
 */
import { tooFewSpeakers } from './comparison-verdict.js';
import { probeGateLines, type ProbeGateRow } from './probe-gates.js';
import { failsFinalLatency, finalLatencyLine, type StreamingSummary } from './streaming/summary.js';

/** The gates a run is checked against; a gate is on only when its flag is given. */
export interface EvaluationGates {
  maxWer?: number;
  maxRegression?: number;
  /** `--max-final-latency MS`: on the p95 of final latency of a streaming evaluation (DESIGN §13.2). */
  maxFinalLatency?: number;
  /** The probes' gates (DESIGN §12.5). */
  maxHallucination?: number;
  minEntityAccuracy?: number;
  /** `--max-failure-rate R` (0..1): failed ÷ attempted requests a row may have; 0 when a gate is on and it is not given (§15.2). */
  maxFailureRate?: number;
  /** `--max-der X` (DESIGN §16.6): on the DER of each conversation summary row of group `all`. */
  maxDer?: number;
}

/** The kind of a gate failure, as JUnit's `<failure type>` names it. */
export type GateFailureType = 'max-wer' | 'max-regression' | 'inconclusive' | 'not-compared' | 'failed-requests' | 'max-final-latency' | 'probes' | 'max-der';

/** One row failing one gate: its JUnit `message`, and the `line` that names it on stderr. */
export interface GateFailure {
  provider: string;
  condition: string;
  group: string;
  type: GateFailureType;
  message: string;
  line: string;
}

/** What the gates read of a summary row. */
export interface GatedSummaryRow extends ProbeGateRow {
  wer: number | null;
  attempted?: number;
  failed_requests: number;
  final_latency_ms?: StreamingSummary['final_latency_ms'];
  streams_failed?: number;
  /** A conversation row's DER (DESIGN §16.4): `{"unsupported": true}` without diarization, null when nothing was scored. */
  der?: number | { unsupported: true } | null;
}

/** What the gates read of a row of a comparison with a baseline. */
export interface GatedCompareRow {
  provider: string;
  condition: string;
  group: string;
  wer_baseline: number;
  wer: number;
  difference: number;
  ci95: readonly [number, number];
  p_worse: number;
  speakers?: number;
  verdict: string;
  attempted?: number;
  failed_requests?: number;
}

/** True when any gate flag was given — which turns on the failed-requests gate too (§15.2). */
export function anyGate(gates: EvaluationGates): boolean {
  return Object.values(gates).some((v) => v !== undefined);
}

const f4 = (x: number) => x.toFixed(4);
const signed = (x: number) => (x > 0 ? '+' : '') + f4(x);

/** A row of group `all` whose failed requests exceed `--max-failure-rate` (default 0) once any gate is on. */
export function failsFailureRate(row: { group: string; attempted?: number; failed_requests?: number }, gates: EvaluationGates): boolean {
  if (!anyGate(gates) || row.group !== 'all') return false;
  const failed = row.failed_requests ?? 0;
  const attempted = row.attempted ?? 0;
  if (failed === 0) return false;
  return attempted === 0 || failed / attempted > (gates.maxFailureRate ?? 0);
}

/** `{provider} under {condition}: {n} of {m} requests failed` (DESIGN §15.2). */
export function failedRequestsLine(row: { provider: string; condition: string; attempted?: number; failed_requests?: number }): string {
  return `${row.provider} under ${row.condition}: ${row.failed_requests ?? 0} of ${row.attempted ?? 0} requests failed`;
}

/** A summary row of group `all` fails `--max-wer` when its WER is above it, or nothing was scored. */
export function failsMaxWer(row: { group: string; wer: number | null }, maxWer: number | undefined): boolean {
  return maxWer !== undefined && row.group === 'all' && (row.wer === null || row.wer > maxWer);
}

/**
 * The `--max-der` line of a summary row of group `all`, or undefined when it passes: a DER above X fails,
 * and so does a DER that was not measured — a provider without diarization, a row with nothing scored,
 * an evaluation that is not a conversation (DESIGN §16.6 under the §15 rules).
 */
export function maxDerLine(row: { provider: string; condition: string; group: string; der?: number | { unsupported: true } | null }, maxDer: number | undefined): string | undefined {
  if (maxDer === undefined || row.group !== 'all') return undefined;
  const der = row.der;
  if (typeof der === 'number') return der > maxDer ? `${row.provider} under ${row.condition}: DER ${f4(der)} exceeds --max-der ${maxDer}` : undefined;
  const why = der === undefined ? 'not a conversation' : der === null ? 'nothing scored' : 'no diarization';
  return `${row.provider} under ${row.condition}: DER not measured (${why}) cannot pass --max-der ${maxDer}`;
}

/** How a regressed row reads on stderr, in JUnit and in Markdown. */
export function regressionLine(r: GatedCompareRow): string {
  return `${r.provider} under ${r.condition}: WER ${f4(r.wer_baseline)} → ${f4(r.wer)} (${signed(r.difference)}, 95% CI ${f4(r.ci95[0])}–${f4(r.ci95[1])}, P(worse) ${r.p_worse.toFixed(3)})`;
}

/** How a row that too few speakers leave undecided reads (DESIGN §15.1). */
export function inconclusiveLine(r: GatedCompareRow): string {
  return `${r.provider} under ${r.condition}: WER ${f4(r.wer_baseline)} → ${f4(r.wer)} (${signed(r.difference)}) cannot be ruled out as a regression: only ${r.speakers ?? 0} speakers`;
}

/**
 * The regression gate of one compare row (group `all` only): `regressed` with a difference above X, or
 * `inconclusive` with a difference above X — too few speakers cannot clear a regression (§15.1).
 */
export function regressionFailure(r: GatedCompareRow, maxRegression: number | undefined): GateFailure | undefined {
  if (maxRegression === undefined || r.group !== 'all' || !(r.difference > maxRegression)) return undefined;
  const key = { provider: r.provider, condition: r.condition, group: r.group };
  if (r.verdict === 'regressed') return { ...key, type: 'max-regression', message: `Regressed beyond --max-regression ${maxRegression}: ${regressionLine(r)}`, line: regressionLine(r) };
  const inconclusive = r.verdict === 'inconclusive' || (r.speakers !== undefined && tooFewSpeakers(r.speakers));
  if (inconclusive) return { ...key, type: 'inconclusive', message: inconclusiveLine(r), line: inconclusiveLine(r) };
  return undefined;
}

/** Every gate failure of an evaluation's summary rows (group `all`), in row order. */
export function summaryGateFailures(rows: readonly GatedSummaryRow[], gates: EvaluationGates): GateFailure[] {
  const out: GateFailure[] = [];
  for (const r of rows) {
    if (r.group !== 'all') continue;
    const key = { provider: r.provider, condition: r.condition, group: r.group };
    if (failsMaxWer(r, gates.maxWer)) {
      const wer = r.wer === null ? 'n/a (nothing scored)' : f4(r.wer);
      out.push({ ...key, type: 'max-wer', message: `WER ${wer} exceeds --max-wer ${gates.maxWer}`, line: `${r.provider} under ${r.condition}: WER ${wer}` });
    }
    if (failsFinalLatency(r, gates.maxFinalLatency)) {
      const line = finalLatencyLine(r, gates.maxFinalLatency!);
      out.push({ ...key, type: 'max-final-latency', message: line, line });
    }
    for (const line of probeGateLines(r, gates)) out.push({ ...key, type: 'probes', message: line, line });
    const der = maxDerLine(r, gates.maxDer);
    if (der) out.push({ ...key, type: 'max-der', message: der, line: der });
    if (failsFailureRate(r, gates)) out.push({ ...key, type: 'failed-requests', message: failedRequestsLine(r), line: failedRequestsLine(r) });
  }
  return out;
}

/** How a provider and condition of the new run that no compare row measured reads. */
export function notComparedLine(r: { provider: string; condition: string }): string {
  return `${r.provider} under ${r.condition}: no utterance matched the baseline, so no regression was measured`;
}

/**
 * Every gate failure of a comparison's rows: the regression gate and the new run's failed requests. Given
 * the new run's summary (`newRun`), each of its group-`all` rows that has no compare row — a provider or
 * condition the baseline did not have, or one of whose utterances none matched — fails the regression gate
 * as `not-compared`: a gate never passes what it could not measure (DESIGN §15).
 */
export function compareGateFailures(rows: readonly GatedCompareRow[], gates: EvaluationGates, newRun?: readonly GatedSummaryRow[]): GateFailure[] {
  const out: GateFailure[] = [];
  for (const r of rows) {
    const regression = regressionFailure(r, gates.maxRegression);
    if (regression) out.push(regression);
    if (r.attempted !== undefined && failsFailureRate(r, gates)) {
      out.push({ provider: r.provider, condition: r.condition, group: r.group, type: 'failed-requests', message: failedRequestsLine(r), line: failedRequestsLine(r) });
    }
  }
  if (newRun && gates.maxRegression !== undefined) {
    const keyOf = (r: { provider: string; condition: string }) => JSON.stringify([r.provider, r.condition]);
    const compared = new Set(rows.filter((r) => r.group === 'all').map(keyOf));
    for (const r of newRun) {
      if (r.group !== 'all' || compared.has(keyOf(r))) continue;
      const line = notComparedLine(r);
      out.push({ provider: r.provider, condition: r.condition, group: r.group, type: 'not-compared', message: `${line}: cannot pass --max-regression ${gates.maxRegression}`, line });
    }
  }
  return out;
}

/**
 * The failures of a run and, when given, of its comparison with a baseline — one per row and gate: a
 * row's failed requests are said once even when both its summary and its compare row carry them.
 */
export function gateFailures(input: { summary?: readonly GatedSummaryRow[]; compare?: readonly GatedCompareRow[] }, gates: EvaluationGates): GateFailure[] {
  const all = [...summaryGateFailures(input.summary ?? [], gates), ...(input.compare ? compareGateFailures(input.compare, gates, input.summary) : [])];
  const seen = new Set<string>();
  return all.filter((f) => {
    const key = JSON.stringify([f.provider, f.condition, f.group, f.type, f.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
