/**
 * The report's "Conversations" panel (DESIGN §16.6): WER, cpWER and DER per provider × condition with
 * their intervals, the speaker-count accuracy and dropped turns, then a timeline of each of the first
 * calls — the reference turns and every provider's speaker segments on one time axis, coloured by
 * speaker — the first call open, the others folded in `<details>`. Nothing for an evaluation of short
 * utterances.
 */
import type { EvaluationDetail, EvaluationSummaryRow, EvaluationUtterance, ReportCall, ReportSegment } from '../../../../shared/schemas/evaluations.js';
import { diarizationError } from '../../../../shared/conversations/index.js';
import { html, type SafeHtml } from '../../../html.js';
import { fittedText, FONT, labelMargin, PROVIDER_COLOURS, ticks } from './svg.js';

/** Calls drawn as timelines, at most. */
export const TIMELINE_CALLS = 20;

type Rate = number | { unsupported: true } | null | undefined;
type Ci = readonly [number, number] | { unsupported: true } | null | undefined;

const UNSUPPORTED_TITLE = 'the provider has no diarization: it is scored for WER only';
const NOT_MEASURED = html`<span class="muted">not measured</span>`;
const unsupportedCell = html`<span class="unsupported" title="${UNSUPPORTED_TITLE}">unsupported</span>`;

/** A rate as the CLI writes it (4 decimals), `unsupported` without diarization, `not measured` when null. */
function rate(x: Rate): SafeHtml | string {
  if (x === null || x === undefined) return NOT_MEASURED;
  return typeof x === 'number' ? x.toFixed(4) : unsupportedCell;
}

function interval(x: Ci): SafeHtml | string {
  if (!x) return NOT_MEASURED;
  return 'unsupported' in x ? unsupportedCell : `${x[0].toFixed(4)} – ${x[1].toFixed(4)}`;
}

/** Whether the evaluation's items are calls: synthetic (`conversation`), or recorded (rows carrying `der`, calls). */
export function isConversationReport(ev: EvaluationDetail, calls: readonly ReportCall[]): boolean {
  return ev.conversation !== undefined || (ev.summary ?? []).some((r) => r.der !== undefined) || calls.length > 0;
}

/** The condition the timelines show: `clean` when the evaluation has it, else its first condition. */
export const timelineCondition = (conditions: readonly string[]): string => (conditions.includes('clean') ? 'clean' : conditions[0]!);

/** The panel, or nothing for an evaluation that is not of calls. */
export function conversationSection(
  ev: EvaluationDetail,
  utterances: readonly EvaluationUtterance[],
  calls: readonly ReportCall[],
  view: { label(provider: string): string },
): SafeHtml | string {
  if (!isConversationReport(ev, calls)) return '';
  const o = ev.conversation;
  const setup = o
    ? `${o.calls ?? calls.length} synthetic call(s) of ${o.turns ?? 12} turns between ${o.speakers_per_call ?? 2} speakers (gaps ${(o.gap_ms ?? [200, 800]).join('–')} ms, overlap ${o.overlap ?? 0}).`
    : 'Recorded calls, each scored against its STM segments.';
  const table = ev.summary
    ? metricsTable(ev.summary.filter((r) => r.group === 'all'), utterances, view)
    : html`<p class="muted">No summary: the evaluation is ${ev.status}.</p>`;
  const condition = timelineCondition(ev.conditions);
  const shown = calls.slice(0, TIMELINE_CALLS);
  const timelines = shown.length
    ? shown.map((call, i) => {
        const body = callTimeline(call, ev.providers, condition, utterances, view);
        const title = callTitle(call);
        return i === 0
          ? html`<h3 id="timeline-first">${title}</h3>${body}`
          : html`<details class="call" data-call="${call.utterance_id}"><summary>${title}</summary>${body}</details>`;
      })
    : html`<p class="muted">No call has been built yet.</p>`;
  return html`<section id="conversations" aria-labelledby="conv-h"><h2 id="conv-h">Conversations</h2>
<p class="lead">${setup} Each call is one utterance per provider × condition, scored on the whole call: <em>WER</em> over every turn's words in order of start; <em>cpWER</em> pairs reference and provider speakers the way that makes the fewest errors; <em>DER</em> is NIST md-eval's (0.25 s collar, overlap scored) over all the calls at once. Intervals: 95%, 1,000 bootstrap resamples of calls. A provider without diarization is scored for WER only.</p>
${table}
<h3>Timelines under ${condition}</h3>
<p class="lead">The reference turns and each provider's speaker segments on one time axis (seconds from the call's start). A provider's speaker takes the colour of the reference speaker DER pairs it with; a speaker it pairs with no one gets a colour of its own. Hover a stretch for its times${calls.length > 1 ? '; the other calls are folded below the first' : ''}.</p>
${timelines}${calls.length > TIMELINE_CALLS ? html`<p class="muted">The timelines of the first ${TIMELINE_CALLS} calls are shown.</p>` : ''}</section>`;
}

/** Calls of a summary row whose speaker count was right, and those with a count found (null: none). */
function speakerCounts(r: EvaluationSummaryRow, utterances: readonly EvaluationUtterance[]): { right: number; of: number } | null {
  const rows = utterances.filter((u) => u.provider === r.provider && u.condition === r.condition && u.speakers_found !== undefined && u.speakers_found !== null);
  return rows.length ? { right: rows.filter((u) => u.speakers_found === u.speakers).length, of: rows.length } : null;
}

function metricsTable(rows: readonly EvaluationSummaryRow[], utterances: readonly EvaluationUtterance[], view: { label(provider: string): string }): SafeHtml {
  return html`<table id="conversation-metrics"><thead><tr><th>Provider</th><th>Condition</th><th>Calls</th><th>WER</th><th>95% CI</th><th>cpWER</th><th>95% CI</th><th>DER</th><th>95% CI</th><th>Speaker count right</th><th>Dropped turns</th></tr></thead><tbody>
${rows.map((r) => {
  const counts = speakerCounts(r, utterances);
  const acc = r.speaker_count_accuracy;
  const accuracy = typeof acc === 'number' ? `${(acc * 100).toFixed(1)}%${counts ? ` (${counts.right} of ${counts.of})` : ''}` : rate(acc);
  return html`<tr data-provider="${r.provider}" data-condition="${r.condition}"><td>${view.label(r.provider)}</td><td>${r.condition}</td><td class="num">${r.utterances}</td>
<td class="num">${r.wer === null ? NOT_MEASURED : r.wer.toFixed(4)}</td><td class="num">${interval(r.wer_ci95)}</td><td class="num">${rate(r.cpwer)}</td><td class="num">${interval(r.cpwer_ci95)}</td>
<td class="num">${rate(r.der)}</td><td class="num">${interval(r.der_ci95)}</td><td class="num">${accuracy}</td><td class="num">${r.dropped_turns ?? NOT_MEASURED}</td></tr>`;
})}</tbody></table>`;
}

function callTitle(call: ReportCall): string {
  if (!call.turns) return `${call.utterance_id} · not built yet`;
  const speakers = new Set(call.turns.map((t) => t.speaker)).size;
  const end = Math.max(0, ...call.turns.map((t) => t.end));
  return `${call.utterance_id} · ${call.turns.length} turns · ${speakers} speakers · ${end.toFixed(1)} s`;
}

const f1 = (n: number) => n.toFixed(1);
const secs = (n: number) => n.toFixed(2);
const colourAt = (k: number) => PROVIDER_COLOURS[k % PROVIDER_COLOURS.length]!;

/** Reference speakers in the order they first speak. */
function speakerOrder(segments: readonly ReportSegment[]): string[] {
  return [...new Set([...segments].sort((a, b) => a.start - b.start || a.end - b.end).map((s) => s.speaker))];
}

/**
 * The colour of each of a provider's speakers: the colour of the reference speaker DER's optimal mapping
 * pairs it with, else the next colour no reference speaker has (in the order it first speaks).
 */
export function hypothesisColours(reference: readonly ReportSegment[], refColours: ReadonlyMap<string, string>, segments: readonly ReportSegment[]): Map<string, string> {
  const paired = new Map<string, string>();
  if (reference.length && segments.length) {
    for (const [ref, hyp] of diarizationError(reference, segments).mapping) paired.set(hyp, refColours.get(ref)!);
  }
  const out = new Map<string, string>();
  let next = refColours.size;
  for (const s of speakerOrder(segments)) out.set(s, paired.get(s) ?? colourAt(next++));
  return out;
}

const LANE_H = 18;
const LANE_GAP = 8;
const PLOT_W = 520;

interface Lane {
  key: SafeHtml;
  label: string;
  segments: readonly (ReportSegment & { text?: string })[];
  colours: ReadonlyMap<string, string>;
  /** Written across an empty lane. */
  empty?: string;
}

/** One call's timeline (inline SVG), its speakers' key and the call's own figures per provider. */
function callTimeline(call: ReportCall, providers: readonly string[], condition: string, utterances: readonly EvaluationUtterance[], view: { label(provider: string): string }): SafeHtml {
  if (!call.turns) return html`<p class="muted">The call is built (and its truth known) when it is synthesised.</p>`;
  const turns = call.turns;
  const refSpeakers = speakerOrder(turns);
  const refColours = new Map(refSpeakers.map((s, k) => [s, colourAt(k)]));
  const lanes: Lane[] = [{ key: html`data-lane="reference"`, label: 'Reference', segments: turns, colours: refColours }];
  for (const provider of providers) {
    const heard = call.hypotheses.find((h) => h.provider === provider && h.condition === condition);
    const key = html`data-lane="hypothesis" data-provider="${provider}"`;
    const label = view.label(provider);
    if (!heard) lanes.push({ key, label, segments: [], colours: new Map(), empty: 'not heard: the request failed or has not run' });
    else if (!heard.diarized) lanes.push({ key, label, segments: [], colours: new Map(), empty: 'unsupported: no diarization' });
    else lanes.push({ key, label, segments: heard.segments, colours: hypothesisColours(turns, refColours, heard.segments), ...(heard.segments.length ? {} : { empty: 'no speaker segment' }) });
  }
  const end = Math.max(1, ...lanes.flatMap((l) => l.segments.map((s) => s.end)));
  const axis = ticks(end, 8);
  const top = axis[axis.length - 1]!;
  const labelW = labelMargin(lanes.map((l) => l.label));
  const x = (t: number) => labelW + (Math.max(0, t) / top) * PLOT_W;
  const bottom = 8 + lanes.length * (LANE_H + LANE_GAP);
  const grid = axis.map(
    (t) => html`<line class="grid" x1="${f1(x(t))}" x2="${f1(x(t))}" y1="4" y2="${bottom}"/><text class="tick" x="${f1(x(t))}" y="${bottom + 14}" text-anchor="middle">${t} s</text>`,
  );
  const rows = lanes.map((lane, i) => {
    const y = 8 + i * (LANE_H + LANE_GAP);
    const rects = [...lane.segments]
      .sort((a, b) => a.start - b.start || a.end - b.end)
      .map(
        (s) =>
          html`<rect class="seg" x="${f1(x(s.start))}" y="${y}" width="${f1(Math.max(0.8, x(s.end) - x(s.start)))}" height="${LANE_H}" fill="${lane.colours.get(s.speaker) ?? '#999999'}" data-speaker="${s.speaker}" data-start="${secs(s.start)}" data-end="${secs(s.end)}"><title>${lane.label} · ${s.speaker} · ${secs(s.start)}–${secs(s.end)} s${s.text === undefined ? '' : `: ${s.text}`}</title></rect>`,
      );
    const empty = lane.empty ? html`<text class="value" x="${labelW + 6}" y="${y + LANE_H / 2 + 4}">${lane.empty}</text>` : '';
    return html`<g class="lane" ${lane.key}>${fittedText(html`class="label" x="${labelW - 8}" y="${y + LANE_H / 2 + 4}" text-anchor="end"`, lane.label, labelW - 14, FONT.label)}${rects}${empty}</g>`;
  });
  const title = `Timeline of ${call.utterance_id} under ${condition}`;
  const svg = html`<svg class="chart timeline" data-call="${call.utterance_id}" viewBox="0 0 ${labelW + PLOT_W + 16} ${bottom + 22}" width="100%" role="img" aria-label="${title}"><title>${title}</title>${grid}${rows}</svg>`;
  // The swatch colour is an SVG presentation attribute: inline style attributes are barred by the CSP.
  const key = html`<div class="legend">${refSpeakers.map((s) => html`<span data-speaker="${s}"><svg width="11" height="11" aria-hidden="true"><rect width="11" height="11" rx="2" fill="${refColours.get(s)!}"/></svg> ${s}</span>`)}</div>`;
  return html`${key}${svg}${callFigures(call, providers, condition, utterances, view)}`;
}

/** The call's own figures per provider under the timeline's condition. */
function callFigures(call: ReportCall, providers: readonly string[], condition: string, utterances: readonly EvaluationUtterance[], view: { label(provider: string): string }): SafeHtml | string {
  const rows = providers.flatMap((p) => utterances.filter((u) => u.utterance_id === call.utterance_id && u.provider === p && u.condition === condition));
  if (!rows.length) return '';
  return html`<table class="call-figures"><thead><tr><th>Provider</th><th>WER</th><th>cpWER</th><th>DER</th><th>Speakers found</th><th>Dropped turns</th></tr></thead><tbody>
${rows.map(
  (u) =>
    html`<tr data-provider="${u.provider}"><td>${view.label(u.provider)}</td>${
      u.transcript === null
        ? html`<td colspan="5" class="muted">no transcript${u.error ? ` (${u.error.code})` : ''}</td>`
        : html`<td class="num">${u.wer === null ? NOT_MEASURED : u.wer.toFixed(4)}</td><td class="num">${rate(u.cpwer)}</td><td class="num">${rate(u.der)}</td><td class="num">${speakersFound(u)}</td><td class="num">${u.dropped_turns ?? NOT_MEASURED}</td>`
    }</tr>`,
)}</tbody></table>`;
}

/** `2 of 2`, `unsupported` for a provider without diarization, `not measured` otherwise. */
function speakersFound(u: EvaluationUtterance): SafeHtml | string {
  if (u.speakers_found !== null && u.speakers_found !== undefined) return `${u.speakers_found} of ${u.speakers ?? '?'}`;
  return typeof u.der === 'object' && u.der !== null ? unsupportedCell : NOT_MEASURED;
}
