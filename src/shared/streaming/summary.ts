/**
 * The streaming columns of an evaluation's summary row (DESIGN §13.2): percentiles of first partial and
 * final latency over the utterances that have them, revisions per utterance and early words in all.
 * Utterances whose stream failed count nowhere here (their error is counted in `failed_requests`).
 */
import { quantile } from '../stats.js';

/** What one streamed utterance contributes. */
export interface StreamedUtterance {
  first_partial_ms: number | null;
  final_latency_ms: number | null;
  revisions: number;
  early_words: number;
  error?: unknown;
}

/** The summary fields; a percentile object is null when no utterance had that figure. */
export interface StreamingSummary {
  first_partial_ms: { p50: number; p95: number } | null;
  final_latency_ms: { p50: number; p95: number; p99: number } | null;
  /** Mean revisions per streamed utterance, 2 decimals (0 for none). */
  revisions_per_utterance: number;
  /** Early words over all streamed utterances. */
  early_words: number;
}

const sortedOf = (xs: number[]) => Float64Array.from(xs).sort();

/** Aggregates the utterances of one summary row (whole ms, percentiles interpolated as `latencyPercentiles`). */
export function streamingSummary(rows: readonly StreamedUtterance[]): StreamingSummary {
  const ok = rows.filter((r) => !r.error);
  const first = sortedOf(ok.flatMap((r) => (r.first_partial_ms === null ? [] : [r.first_partial_ms])));
  const final = sortedOf(ok.flatMap((r) => (r.final_latency_ms === null ? [] : [r.final_latency_ms])));
  return {
    first_partial_ms: first.length ? { p50: Math.round(quantile(first, 0.5)), p95: Math.round(quantile(first, 0.95)) } : null,
    final_latency_ms: final.length ? { p50: Math.round(quantile(final, 0.5)), p95: Math.round(quantile(final, 0.95)), p99: Math.round(quantile(final, 0.99)) } : null,
    revisions_per_utterance: ok.length ? Math.round((ok.reduce((n, r) => n + r.revisions, 0) / ok.length) * 100) / 100 : 0,
    early_words: ok.reduce((n, r) => n + r.early_words, 0),
  };
}

/** The CI gate of `--max-final-latency MS` (§13.2): true when the row's final-latency p95 exceeds it. */
export function exceedsFinalLatency(summary: Pick<StreamingSummary, 'final_latency_ms'>, maxMs: number): boolean {
  return summary.final_latency_ms !== null && summary.final_latency_ms.p95 > maxMs;
}

/**
 * A summary row fails `--max-final-latency MS` (§13.2, exit 7): a row of group `all` whose p95 of final
 * latency is above it, or that has none at all — a provider that never completed a transcript must not
 * pass a latency gate. Off (false) when `maxMs` is undefined.
 */
export function failsFinalLatency(row: { group: string; final_latency_ms?: StreamingSummary['final_latency_ms'] }, maxMs: number | undefined): boolean {
  if (maxMs === undefined || row.group !== 'all') return false;
  const latency = row.final_latency_ms ?? null;
  return latency === null || exceedsFinalLatency({ final_latency_ms: latency }, maxMs);
}

/** How a row failing `--max-final-latency` reads on stderr, in JUnit and in Markdown. */
export function finalLatencyLine(row: { provider: string; condition: string; final_latency_ms?: StreamingSummary['final_latency_ms'] }, maxMs: number): string {
  const p95 = row.final_latency_ms?.p95;
  return `${row.provider} under ${row.condition}: final latency p95 ${p95 === undefined ? 'n/a (no final result)' : `${p95} ms`} exceeds --max-final-latency ${maxMs} ms`;
}
