/**
 * The streaming columns of an evaluation's summary row (DESIGN §13.2, §15.3): percentiles of first partial
 * and final latency, revisions per utterance and early words. A stream that failed (refused, stalled,
 * timed out) never delivered its final result: it counts as +∞, so a percentile whose interpolation
 * touches it is null (printed `timeout`) — a gate must not pass on the streams that happened to finish.
 */

/** What one streamed utterance contributes. */
export interface StreamedUtterance {
  first_partial_ms: number | null;
  final_latency_ms: number | null;
  revisions: number;
  early_words: number;
  /** The stream failed: its final latency (and a first partial it never had) is +∞. */
  failed?: boolean;
}

/** The summary fields; a percentile object is null when no utterance has that figure, a percentile null when it reaches a failed stream. */
export interface StreamingSummary {
  first_partial_ms: { p50: number | null; p95: number | null } | null;
  final_latency_ms: { p50: number | null; p95: number | null; p99: number | null } | null;
  /** Mean revisions per streamed utterance that finished, 2 decimals (0 for none). */
  revisions_per_utterance: number;
  /** Early words over all streamed utterances that finished. */
  early_words: number;
  /** Streams that failed; each is also a failed request (§15.2). */
  streams_failed: number;
}

/**
 * Quantile q of ascending values that may end in +∞ (failed streams), interpolated linearly between
 * neighbours as `quantile` of stats.ts (NumPy's default); null
 * when either neighbour it reads is infinite, whole milliseconds otherwise.
 */
export function censoredQuantile(sorted: Float64Array, q: number): number | null {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const below = sorted[lo]!;
  if (pos === lo) return Number.isFinite(below) ? Math.round(below) : null;
  const above = sorted[hi]!;
  return Number.isFinite(below) && Number.isFinite(above) ? Math.round(below + (above - below) * (pos - lo)) : null;
}

const sortedOf = (xs: number[]) => Float64Array.from(xs).sort();

/** Aggregates the utterances of one summary row (whole ms, percentiles interpolated as `latencyPercentiles`). */
export function streamingSummary(rows: readonly StreamedUtterance[]): StreamingSummary {
  const ok = rows.filter((r) => !r.failed);
  const failed = rows.length - ok.length;
  const infinities = new Array<number>(failed).fill(Infinity);
  // A failed stream's first partial is real when it came; without one, it is as late as its final.
  const first = sortedOf([...rows.flatMap((r) => (r.first_partial_ms !== null ? [r.first_partial_ms] : r.failed ? [Infinity] : []))]);
  const final = sortedOf([...ok.flatMap((r) => (r.final_latency_ms === null ? [] : [r.final_latency_ms])), ...infinities]);
  return {
    first_partial_ms: first.length ? { p50: censoredQuantile(first, 0.5), p95: censoredQuantile(first, 0.95) } : null,
    final_latency_ms: final.length ? { p50: censoredQuantile(final, 0.5), p95: censoredQuantile(final, 0.95), p99: censoredQuantile(final, 0.99) } : null,
    revisions_per_utterance: ok.length ? Math.round((ok.reduce((n, r) => n + r.revisions, 0) / ok.length) * 100) / 100 : 0,
    early_words: ok.reduce((n, r) => n + r.early_words, 0),
    streams_failed: failed,
  };
}

/** The CI gate of `--max-final-latency MS` (§13.2): true when the row's final-latency p95 is a timeout or exceeds it. */
export function exceedsFinalLatency(summary: Pick<StreamingSummary, 'final_latency_ms'>, maxMs: number): boolean {
  const p95 = summary.final_latency_ms?.p95 ?? null;
  return p95 === null || p95 > maxMs;
}

/**
 * A summary row fails `--max-final-latency MS` (§13.2, §15.3, exit 7): a row of group `all` whose p95 of
 * final latency is above it, reaches a failed stream (null), or does not exist — a provider that never
 * completed a transcript must not pass a latency gate. Off (false) when `maxMs` is undefined.
 */
export function failsFinalLatency(row: { group: string; final_latency_ms?: StreamingSummary['final_latency_ms'] }, maxMs: number | undefined): boolean {
  if (maxMs === undefined || row.group !== 'all') return false;
  return exceedsFinalLatency({ final_latency_ms: row.final_latency_ms ?? null }, maxMs);
}

/** A latency percentile as people read it: `timeout` where it reaches a failed stream. */
export const latencyText = (ms: number | null | undefined): string => (ms === null || ms === undefined ? 'timeout' : `${ms} ms`);

/** How a row failing `--max-final-latency` reads on stderr, in JUnit and in Markdown. */
export function finalLatencyLine(row: { provider: string; condition: string; final_latency_ms?: StreamingSummary['final_latency_ms']; streams_failed?: number }, maxMs: number): string {
  const p95 = row.final_latency_ms ? latencyText(row.final_latency_ms.p95) : 'n/a (no final result)';
  const failed = row.streams_failed ? ` (${row.streams_failed} stream${row.streams_failed === 1 ? '' : 's'} failed)` : '';
  return `${row.provider} under ${row.condition}: final latency p95 ${p95} exceeds --max-final-latency ${maxMs} ms${failed}`;
}
