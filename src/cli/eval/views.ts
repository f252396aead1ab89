import { verdict } from '../../shared/comparison-verdict.js';
import type { EvaluationComparison, EvaluationDetail, EvaluationListItem, EvaluationSummaryRow, EvaluationUtterance } from '../../shared/schemas/evaluations.js';
import type { Column, Output } from '../core/output.js';

// How `voxctl eval` prints evaluations, summaries, comparisons and utterances (table, CSV); --json
// prints the API object as-is.

const fmt = (x: number | null) => (x === null ? null : x.toFixed(4));
const ci = (c: readonly [number, number] | null) => (c ? `${c[0].toFixed(4)}–${c[1].toFixed(4)}` : null);

export const summaryColumns: Column<EvaluationSummaryRow>[] = [
  { header: 'provider', get: (r) => r.provider },
  { header: 'condition', get: (r) => r.condition },
  { header: 'group', get: (r) => r.group },
  { header: 'utterances', get: (r) => r.utterances },
  { header: 'speakers', get: (r) => r.speakers },
  { header: 'wer', get: (r) => fmt(r.wer) },
  { header: 'wer_ci95', get: (r) => ci(r.wer_ci95) },
  { header: 'cer', get: (r) => fmt(r.cer) },
  { header: 'p50_ms', get: (r) => r.latency_ms.p50 },
  { header: 'p95_ms', get: (r) => r.latency_ms.p95 },
  { header: 'failed', get: (r) => (r.failed_requests ? `${r.failed_requests}/${r.attempted}` : 0) },
];

/** A latency percentile of a row that has them: `timeout` where it reaches a failed stream (DESIGN §15.3). */
const percentile = (p: { [k: string]: number | null } | null | undefined, k: string) => (p ? (p[k] ?? 'timeout') : null);

/** The §13.2 columns a streaming evaluation's summary adds: first partial, final latency, revisions, early words. */
export const streamingSummaryColumns: Column<EvaluationSummaryRow>[] = [
  { header: 'first_p50_ms', get: (r) => percentile(r.first_partial_ms, 'p50') },
  { header: 'final_p50_ms', get: (r) => percentile(r.final_latency_ms, 'p50') },
  { header: 'final_p95_ms', get: (r) => percentile(r.final_latency_ms, 'p95') },
  { header: 'final_p99_ms', get: (r) => percentile(r.final_latency_ms, 'p99') },
  { header: 'streams_failed', get: (r) => r.streams_failed ?? 0 },
  { header: 'revisions', get: (r) => r.revisions_per_utterance ?? null },
  { header: 'early_words', get: (r) => r.early_words ?? null },
];

/** A conversation rate of a summary row: 4 decimals, `unsupported` without diarization (DESIGN §16.4). */
const convRate = (x: number | { unsupported: true } | null | undefined) => (x === undefined || x === null ? null : typeof x === 'number' ? x.toFixed(4) : 'unsupported');
const convEnd = (x: readonly [number, number] | { unsupported: true } | null | undefined, k: 0 | 1) => (!x ? null : 'unsupported' in x ? 'unsupported' : x[k]);
const convCi = (x: readonly [number, number] | { unsupported: true } | null | undefined) => (!x ? null : 'unsupported' in x ? 'unsupported' : ci(x));

/** Whether an evaluation's items are calls, synthetic (`conversation`) or recorded (its rows carry `der`). */
export const isConversation = (ev: Pick<EvaluationDetail, 'conversation' | 'summary'>): boolean => ev.conversation !== undefined || (ev.summary ?? []).some((r) => r.der !== undefined);

/** The §16.4 columns a conversation's summary adds: DER, cpWER with their intervals, speaker counts, dropped turns. */
export const conversationSummaryColumns: Column<EvaluationSummaryRow>[] = [
  { header: 'der', get: (r) => convRate(r.der) },
  { header: 'der_ci95', get: (r) => convCi(r.der_ci95) },
  { header: 'cpwer', get: (r) => convRate(r.cpwer) },
  { header: 'cpwer_ci95', get: (r) => convCi(r.cpwer_ci95) },
  { header: 'speaker_count_ok', get: (r) => convRate(r.speaker_count_accuracy) },
  { header: 'dropped_turns', get: (r) => r.dropped_turns ?? null },
];

/** The same columns in CSV: each interval end in its own column, `unsupported` kept as the word. */
export const conversationCsvColumns: Column<EvaluationSummaryRow>[] = [
  { header: 'der', get: (r) => convRate(r.der) },
  { header: 'der_ci95_low', get: (r) => convEnd(r.der_ci95, 0) },
  { header: 'der_ci95_high', get: (r) => convEnd(r.der_ci95, 1) },
  { header: 'cpwer', get: (r) => convRate(r.cpwer) },
  { header: 'cpwer_ci95_low', get: (r) => convEnd(r.cpwer_ci95, 0) },
  { header: 'cpwer_ci95_high', get: (r) => convEnd(r.cpwer_ci95, 1) },
  { header: 'speaker_count_accuracy', get: (r) => convRate(r.speaker_count_accuracy) },
  { header: 'dropped_turns', get: (r) => r.dropped_turns ?? null },
];

const pct = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : `${(x * 100).toFixed(1)}%`);

/** The probes table of `eval show` (DESIGN §12.5): each provider's row for condition clean, group all. */
export const probeColumns: Column<EvaluationSummaryRow>[] = [
  { header: 'provider', get: (r) => r.provider },
  {
    header: 'hallucination',
    get: (r) => (r.non_speech ? `${pct(r.non_speech.hallucination_rate)} of ${r.non_speech.clips}${r.non_speech.ci95 ? ` (${pct(r.non_speech.ci95[0])}–${pct(r.non_speech.ci95[1])})` : ''}` : null),
  },
  { header: 'words_per_min', get: (r) => r.non_speech?.words_per_minute ?? null },
  { header: 'loops', get: (r) => r.loops ?? null },
  { header: 'wer_capped', get: (r) => fmt(r.wer_capped ?? null) },
  {
    header: 'entities',
    get: (r) => (r.entities ? Object.entries(r.entities).map(([type, e]) => `${type} ${pct(e.accuracy)} (${e.found}/${e.total})`).join(', ') : null),
  },
  {
    header: 'keyterm_recall',
    get: (r) => (!r.keyterms ? null : 'unsupported' in r.keyterms ? 'unsupported' : `${pct(r.keyterms.recall_without)} → ${pct(r.keyterms.recall_with)} of ${r.keyterms.occurrences}`),
  },
  {
    header: 'keyterm_false_pos',
    get: (r) => (!r.keyterms || 'unsupported' in r.keyterms ? null : `${r.keyterms.false_positives_without} → ${r.keyterms.false_positives_with}`),
  },
];

/** CSV keeps every count and both interval ends in their own columns (for spreadsheets). */
export const summaryCsvColumns: Column<EvaluationSummaryRow>[] = [
  ...summaryColumns.slice(0, 5),
  { header: 'reference_words', get: (r) => r.reference_words },
  { header: 'substitutions', get: (r) => r.substitutions },
  { header: 'deletions', get: (r) => r.deletions },
  { header: 'insertions', get: (r) => r.insertions },
  { header: 'wer', get: (r) => r.wer },
  { header: 'wer_ci95_low', get: (r) => r.wer_ci95?.[0] },
  { header: 'wer_ci95_high', get: (r) => r.wer_ci95?.[1] },
  { header: 'cer', get: (r) => r.cer },
  { header: 'latency_p50_ms', get: (r) => r.latency_ms.p50 },
  { header: 'latency_p95_ms', get: (r) => r.latency_ms.p95 },
  { header: 'attempted', get: (r) => r.attempted },
  { header: 'failed_requests', get: (r) => r.failed_requests },
];

export const comparisonColumns: Column<EvaluationComparison>[] = [
  { header: 'condition', get: (c) => c.condition },
  // A pair has a row for group `all` and each group value (DESIGN §8.3): without the group, its rows read as repeats.
  { header: 'group', get: (c) => c.group },
  { header: 'a', get: (c) => c.a },
  { header: 'b', get: (c) => c.b },
  { header: 'wer_a', get: (c) => fmt(c.wer_a) },
  { header: 'wer_b', get: (c) => fmt(c.wer_b) },
  { header: 'difference', get: (c) => fmt(c.difference) },
  { header: 'ci95', get: (c) => ci(c.ci95) },
  { header: 'p_a_better', get: (c) => c.p_a_better },
  { header: 'speakers', get: (c) => c.speakers },
  { header: 'verdict', get: (c) => verdict(c) },
];

export const listColumns: Column<EvaluationListItem>[] = [
  { header: 'evaluation_id', get: (e) => e.evaluation_id },
  { header: 'name', get: (e) => e.name },
  { header: 'status', get: (e) => e.status },
  { header: 'progress', get: (e) => e.progress },
  { header: 'total_utterances', get: (e) => e.total_utterances },
  { header: 'created_at', get: (e) => e.created_at },
];

const truncate = (s: string | null, n: number) => (s === null ? null : [...s].length > n ? [...s].slice(0, n - 1).join('') + '…' : s);

/** The columns of utterance rows; rows of a corpus evaluation show their corpus utterance id too, streamed ones their latencies. */
export const utteranceColumns = (full: boolean, corpus = false, streamed = false): Column<EvaluationUtterance>[] => [
  { header: 'text_index', get: (u) => u.text_index },
  ...(corpus ? [{ header: 'utterance_id', get: (u: EvaluationUtterance) => u.utterance_id }] : []),
  { header: 'speaker_id', get: (u) => u.speaker_id },
  { header: 'group', get: (u) => u.group },
  { header: 'condition', get: (u) => u.condition },
  { header: 'provider', get: (u) => u.provider },
  { header: 'wer', get: (u) => u.wer },
  ...(full
    ? [
        { header: 'substitutions', get: (u: EvaluationUtterance) => u.substitutions },
        { header: 'deletions', get: (u: EvaluationUtterance) => u.deletions },
        { header: 'insertions', get: (u: EvaluationUtterance) => u.insertions },
      ]
    : []),
  { header: 'latency_ms', get: (u) => u.latency_ms },
  ...(streamed
    ? [
        { header: 'first_partial_ms', get: (u: EvaluationUtterance) => u.first_partial_ms ?? null },
        { header: 'final_latency_ms', get: (u: EvaluationUtterance) => u.final_latency_ms ?? null },
        { header: 'revisions', get: (u: EvaluationUtterance) => u.revisions ?? null },
        { header: 'early_words', get: (u: EvaluationUtterance) => u.early_words ?? null },
      ]
    : []),
  ...(full ? [{ header: 'confidence', get: (u: EvaluationUtterance) => u.confidence }] : []),
  { header: 'determinable', get: (u) => u.determinable },
  ...(full
    ? [
        { header: 'reference', get: (u: EvaluationUtterance) => u.reference },
        { header: 'transcript', get: (u: EvaluationUtterance) => u.transcript },
        { header: 'error_code', get: (u: EvaluationUtterance) => u.error?.code },
        { header: 'error_message', get: (u: EvaluationUtterance) => u.error?.message },
        { header: 'audio_url', get: (u: EvaluationUtterance) => u.audio_url },
      ]
    : [{ header: 'transcript / error', get: (u: EvaluationUtterance) => (u.error ? `[${u.error.code}] ${u.error.message}` : truncate(u.transcript, 48)) }]),
];

/** A conversation metric (DESIGN §16.4): a number, `{"unsupported": true}` without diarization, or null when not scored. */
const callMetric = (x: unknown) => (typeof x === 'number' ? x.toFixed(4) : x !== null && typeof x === 'object' && 'unsupported' in x ? 'unsupported' : null);
const field = (u: EvaluationUtterance, name: string): unknown => (u as unknown as Record<string, unknown>)[name] ?? null;

/** The columns of `eval calls` (DESIGN §16.6): one row per call × provider × condition. */
export const callColumns: Column<EvaluationUtterance>[] = [
  { header: 'call', get: (u) => u.utterance_id },
  { header: 'provider', get: (u) => u.provider },
  { header: 'condition', get: (u) => u.condition },
  { header: 'wer', get: (u) => fmt(u.wer) },
  { header: 'cpwer', get: (u) => callMetric(field(u, 'cpwer')) },
  { header: 'der', get: (u) => callMetric(field(u, 'der')) },
  { header: 'speakers', get: (u) => field(u, 'speakers') },
  { header: 'speakers_found', get: (u) => field(u, 'speakers_found') },
  { header: 'dropped_turns', get: (u) => field(u, 'dropped_turns') },
  { header: 'loop', get: (u) => u.loop ?? null },
  { header: 'error', get: (u) => (u.error ? `[${u.error.code}] ${u.error.message}` : null) },
];

/** Replaces provider tokens by their labels (`stt-b · deepgram nova-3`) in the human tables. */
const labelled = <T>(columns: readonly Column<T>[], headers: readonly string[], label: (id: string) => string): Column<T>[] =>
  columns.map((c) => (headers.includes(c.header) ? { header: c.header, get: (r: T) => label(String(c.get(r))) } : c));

/**
 * The human view of an evaluation: its fields, then the summary and comparisons when present, each
 * provider labelled with its vendor and model by `label`.
 */
export async function printEvaluation(out: Output, ev: EvaluationDetail, label: (id: string) => string = (id) => id): Promise<void> {
  out.fields([
    ['evaluation_id', ev.evaluation_id],
    ['name', ev.name],
    ['status', ev.status],
    ['progress', `${ev.progress}% (${ev.completed_utterances}/${ev.total_utterances} utterances)`],
    ['providers', ev.providers.map(label).join(', ')],
    ['conditions', ev.conditions.join(', ')],
    ...(ev.corpus_id !== undefined ? [['corpus', `${ev.corpus_name ?? ''} (${ev.corpus_id})`] as [string, unknown]] : []),
    ['group_by', ev.group_by],
    ['normalizer', `${ev.normalizer.name} v${ev.normalizer.version}`],
    ['seed', ev.seed],
    ...(ev.mode === 'streaming' ? [['mode', `streaming at pace ${ev.pace ?? 1}`] as [string, unknown]] : []),
    ...(ev.conversation
      ? [['conversation', `${ev.conversation.calls} calls × ${ev.conversation.turns} turns, ${ev.conversation.speakers_per_call} speakers, overlap ${ev.conversation.overlap}`] as [string, unknown]]
      : []),
    ['created_at', ev.created_at],
    ['completed_at', ev.completed_at],
  ]);
  if (!ev.summary) {
    out.info(`The summary appears when the evaluation is completed or partial (now ${ev.status}).`);
    return;
  }
  out.write('\n');
  const columns = ev.mode === 'streaming' ? [...summaryColumns, ...streamingSummaryColumns] : summaryColumns;
  await out.table(ev.summary, labelled(columns, ['provider'], label));
  // Synthetic or recorded calls (DESIGN §16): their rows carry the conversation metrics.
  const calls = isConversation(ev);
  if (calls) {
    out.write('\nConversations (SPEAKERS above counts calls: each call is a bootstrap block):\n');
    await out.table(ev.summary, labelled([summaryColumns[0]!, summaryColumns[1]!, ...conversationSummaryColumns], ['provider'], label));
  }
  if (ev.corpus_id !== undefined && !calls) out.write('SPEAKERS counts bootstrap blocks: each named speaker of the corpus, and each utterance without a speaker as a block of its own.\n');
  if (ev.comparisons?.length) {
    out.write('\n');
    await out.table(ev.comparisons, labelled(comparisonColumns, ['a', 'b'], label));
  }
  if (ev.probes) {
    out.write('\nProbes (condition clean, all speakers):\n');
    await out.table(
      ev.summary.filter((r) => r.condition === 'clean' && r.group === 'all'),
      labelled(probeColumns, ['provider'], label),
    );
  }
}
