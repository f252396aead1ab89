/**
 * The report's latency panel of a streaming evaluation (DESIGN §13.2): what a voice agent feels — how
 * soon the final words arrive after the caller stops — per provider, with a speaker-block interval on
 * the median so "fastest" is not read into noise, beside first partials, revisions and early words.
 */
import type { EvaluationDetail, EvaluationSummaryRow, EvaluationUtterance } from '../../../../shared/schemas/evaluations.js';
import { blockMedianCi } from '../../../../shared/stats.js';
import { html, type SafeHtml } from '../../../html.js';
import { SYNTHESIS_FAILED } from '../summary.js';
import { speakerBlock } from './data.js';
import { latencyStrips } from './svg.js';

/** One provider × condition of the panel: the summary row's figures and the interval of its median. */
export interface StreamingPanelRow {
  provider: string;
  condition: string;
  row: EvaluationSummaryRow;
  /**
   * 95% speaker-block interval of the median final latency (ms), failed streams counted as +∞ (DESIGN
   * §15.3): an end they reach is Infinity; null when nothing was streamed.
   */
  finalMedianCi: [number, number] | null;
  /** The final latencies of the row's utterances (the strip chart's dots). */
  finals: number[];
}

/** The panel's rows: group `all` of each provider × condition that has streamed utterances. */
export function streamingPanelRows(ev: Pick<EvaluationDetail, 'summary' | 'providers' | 'conditions' | 'seed'>, utterances: readonly EvaluationUtterance[]): StreamingPanelRow[] {
  const rows: StreamingPanelRow[] = [];
  for (const row of ev.summary ?? []) {
    if (row.group !== 'all') continue;
    const streamed = utterances.filter((u) => u.provider === row.provider && u.condition === row.condition && u.error?.code !== SYNTHESIS_FAILED);
    const mine = streamed.filter((u) => typeof u.final_latency_ms === 'number' && u.error === null);
    const failed = streamed.filter((u) => u.error !== null);
    const finals = mine.map((u) => u.final_latency_ms!);
    rows.push({ provider: row.provider, condition: row.condition, row, finalMedianCi: medianCi(mine, failed, ev.seed), finals });
  }
  return rows;
}

/**
 * The interval of the median final latency over finished and failed streams. The bootstrap's arithmetic
 * needs a finite stand-in for a failed stream's +∞; an end above every finished stream's latency was
 * reached by one, so it is +∞ (printed `timeout`).
 */
function medianCi(finished: readonly EvaluationUtterance[], failed: readonly EvaluationUtterance[], seed: number): [number, number] | null {
  if (finished.length + failed.length === 0) return null;
  const slowest = Math.max(0, ...finished.map((u) => u.final_latency_ms!));
  const values = [...finished.map((u) => ({ block: speakerBlock(u), value: u.final_latency_ms! })), ...failed.map((u) => ({ block: speakerBlock(u), value: Number.MAX_VALUE }))];
  const [lo, hi] = blockMedianCi(values, { seed });
  const end = (x: number) => (x > slowest ? Infinity : x);
  return [end(lo), end(hi)];
}

/** An end of an interval as the table prints it. */
const ms = (x: number) => (Number.isFinite(x) ? `${x}` : 'timeout');

/** The median final latency of a row; null when none was measured or failed streams reach it (+∞). */
const medianFinal = (r: StreamingPanelRow): number | null => r.row.final_latency_ms?.p50 ?? null;

/** The provider answering first after the caller stops under `condition` (lowest finite median), if any answered. */
export function fastestAfterSpeech(rows: readonly StreamingPanelRow[], condition: string): StreamingPanelRow | undefined {
  return rows.filter((r) => r.condition === condition && medianFinal(r) !== null).sort((a, b) => medianFinal(a)! - medianFinal(b)!)[0];
}

/**
 * A percentile of a row: `n/a` when the row has none (nothing streamed), `timeout` when it is null because
 * failed streams (+∞) reach it (DESIGN §15.3).
 */
function pctl<K extends string>(p: Partial<Record<K, number | null>> | null | undefined, key: K): string {
  if (!p) return 'n/a';
  const v = p[key];
  return v === null || v === undefined ? 'timeout' : `${v}`;
}

/** The section, or nothing for a batch evaluation. */
export function streamingSection(
  ev: EvaluationDetail,
  utterances: readonly EvaluationUtterance[],
  view: { label(provider: string): string; colour(provider: string): string },
): SafeHtml | string {
  if (ev.mode !== 'streaming') return '';
  const rows = streamingPanelRows(ev, utterances);
  const intro = html`<p class="lead">Audio streamed at pace ${ev.pace ?? 1} in 20 ms frames of 16-bit PCM. <em>Final latency</em> runs from the end of speech (the end of the last 10 ms window within 35 dB of the utterance's peak) to the final result that completes the transcript; <em>first partial</em> from the first frame sent. Intervals: 95%, 1,000 resamples of speakers. <em>Early words</em> arrived before the audio holding them was sent.</p>`;
  if (!ev.summary) return html`<section id="streaming-latency" aria-labelledby="stream-h"><h2 id="stream-h">Latency after the caller stops</h2>${intro}<p class="muted">No summary: the evaluation is ${ev.status}.</p></section>`;
  const verdicts = ev.conditions.flatMap((c) => {
    const best = fastestAfterSpeech(rows, c);
    if (!best) return [];
    const overlapping = rows.filter((r) => r !== best && r.condition === c && r.finalMedianCi && best.finalMedianCi && r.finalMedianCi[0] <= best.finalMedianCi[1]);
    const hedge = overlapping.length ? ` (its interval overlaps ${overlapping.map((r) => view.label(r.provider)).join(', ')}: not a clear winner)` : '';
    return [html`<li>${c}: fastest after the caller stops is <strong>${view.label(best.provider)}</strong>, median ${medianFinal(best)} ms${hedge}</li>`];
  });
  const strips = ev.conditions.map((c) => {
    const inCondition = rows.filter((r) => r.condition === c && r.finals.length > 0);
    if (!inCondition.length) return '';
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    return html`<h3>${c}</h3>${latencyStrips({
      title: `Final latency after the end of speech under ${c}`,
      rows: inCondition.map((r) => ({
        provider: r.provider,
        label: view.label(r.provider),
        colour: view.colour(r.provider),
        points: sorted(r.finals),
        count: r.finals.length,
        p50: r.row.final_latency_ms?.p50 ?? null,
        p95: r.row.final_latency_ms?.p95 ?? null,
        failed: r.row.streams_failed ?? 0,
      })),
    })}`;
  });
  return html`<section id="streaming-latency" aria-labelledby="stream-h"><h2 id="stream-h">Latency after the caller stops</h2>${intro}
<ul id="fastest">${verdicts}</ul>${strips}
<table id="streaming-table"><thead><tr><th>Provider</th><th>Condition</th><th>First partial p50 / p95 ms</th><th>Final latency p50 ms</th><th>95% CI</th><th>p95 / p99 ms</th><th>Streams failed</th><th>Revisions per utterance</th><th>Early words</th><th>WER</th></tr></thead><tbody>
${rows.map(
  (r) => html`<tr><td>${view.label(r.provider)}</td><td>${r.condition}</td><td class="num">${pctl(r.row.first_partial_ms, 'p50')} / ${pctl(r.row.first_partial_ms, 'p95')}</td>
<td class="num">${pctl(r.row.final_latency_ms, 'p50')}</td><td class="num">${r.finalMedianCi ? `${ms(r.finalMedianCi[0])} – ${ms(r.finalMedianCi[1])}` : 'n/a'}</td>
<td class="num">${pctl(r.row.final_latency_ms, 'p95')} / ${pctl(r.row.final_latency_ms, 'p99')}</td><td class="num">${r.row.streams_failed ?? 0} of ${r.row.attempted}</td><td class="num">${r.row.revisions_per_utterance ?? 'n/a'}</td><td class="num">${r.row.early_words ?? 'n/a'}</td><td class="num">${r.row.wer === null ? 'n/a' : r.row.wer.toFixed(4)}</td></tr>`,
)}</tbody></table></section>`;
}
