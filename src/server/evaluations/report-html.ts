/**
 * The evaluation report (DESIGN §8.5): one self-contained HTML page — inline SVG charts, one hashed
 * stylesheet, no script, no external asset — served by the signed report route and saved by
 * `voxctl eval report`. Every text of the page is escaped: references and transcripts are user data.
 */
import type { AlignmentStep } from '../../shared/accuracy.js';
import type { EvaluationComparison, EvaluationDetail, EvaluationReportInput, EvaluationSummaryRow } from '../../shared/schemas/evaluations.js';
import { html, SafeHtml } from '../html.js';
import { verdict } from '../../shared/comparison-verdict.js';
import { providerLatencies, setupFacts, speakerBlock, summaryGroups, worstFailures, WORST_FAILURES, type ReportedFailure } from './report-data.js';
import { REPORT_STYLE } from './report-style.js';
import { heatMap, latencyStrips, percent, providerColour, werBarChart } from './report-svg.js';

export { REPORT_CSP } from './report-style.js';

/** Renders the whole report page of an evaluation at `generatedAt`. */
export function renderEvaluationReport(input: EvaluationReportInput): string {
  const { evaluation: ev, utterances, generatedAt } = input;
  const title = `Evaluation ${ev.name ?? ev.evaluation_id}`;
  const summary = ev.summary ?? [];
  const colours = new Map(ev.providers.map((p, i) => [p, providerColour(i)]));
  const body = html`
<header><div><h1>${title}</h1><p>${ev.evaluation_id} · <span class="badge ${ev.status}" id="status">${ev.status}</span> · generated ${stamp(generatedAt.toISOString())}</p></div></header>
<main>
${stateNotice(ev)}
${setupSection(input)}
<section id="wer-by-group" aria-labelledby="wer-h"><h2 id="wer-h">WER by ${ev.group_by} per provider</h2>
<p class="lead">Corpus WER (all errors ÷ all reference words) per group value; whiskers are 95% intervals from 1,000 bootstrap resamples of speakers.</p>
${ev.summary ? html`${legend(ev.providers, colours)}${werCharts(ev, summary, colours)}` : pendingNote(ev)}</section>
<section id="heat-map" aria-labelledby="heat-h"><h2 id="heat-h">Provider × condition</h2>
<p class="lead">WER over every group (group “all”); darker is worse.</p>
${ev.summary ? html`${heatMap({ title: 'WER by provider and condition', providers: ev.providers, conditions: ev.conditions, cells: heatCells(summary) })}${totalsTable(summary)}` : pendingNote(ev)}</section>
${latencySection(input, colours)}
${comparisonSection(ev)}
${failureSection(ev, worstFailures(ev, utterances))}
</main>`;
  return layout(title, body);
}

function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><link rel="icon" href="data:,"><title>${title}</title><style>${new SafeHtml(REPORT_STYLE)}</style></head>
<body>${body}</body></html>`.value;
}

const stamp = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—');
const count = (n: number) => n.toLocaleString('en-US');
const fixed = (x: number | null, digits = 4) => (x === null ? 'n/a' : x.toFixed(digits));
const interval = (ci: readonly [number, number] | null) => (ci ? `${fixed(ci[0])} – ${fixed(ci[1])}` : 'n/a');

/** Why parts of the page are missing, for every state but `completed`. */
function stateNotice(ev: EvaluationDetail): SafeHtml | string {
  const done = `${count(ev.completed_utterances)} of ${count(ev.total_utterances)} utterances`;
  switch (ev.status) {
    case 'pending':
    case 'processing':
      return html`<div class="state" role="status" id="state">Still running: ${done} done (${ev.progress}%). The summary, comparisons and failures appear when it completes; open the report link again then.</div>`;
    case 'cancelled':
      return html`<div class="state cancelled" role="status" id="state">Cancelled after ${done}. A cancelled evaluation has no summary; the latencies and failures below cover the utterances that ran.</div>`;
    case 'failed':
      return html`<div class="state failed" role="status" id="state">This evaluation failed after ${done}: no speech could be synthesised and scored.</div>`;
    case 'partial':
      return html`<div class="state" role="status" id="state">Partial: some syntheses failed, so ${done} were scored. The figures cover those utterances only.</div>`;
    default:
      return '';
  }
}

function pendingNote(ev: EvaluationDetail): SafeHtml {
  return html`<p class="muted">No summary: the evaluation is ${ev.status}.</p>`;
}

function setupSection(input: EvaluationReportInput): SafeHtml {
  const ev = input.evaluation;
  const facts = setupFacts(input.utterances);
  const groups = facts.groups.map((g) => `${g.group} (${g.speakers})`).join(', ');
  const corpus = ev.corpus_id === undefined ? '' : html`<dt>Corpus</dt><dd id="setup-corpus">recorded corpus ${ev.corpus_name ?? ev.corpus_id} (${ev.corpus_id})</dd>
`;
  return html`<section id="setup" aria-labelledby="setup-h"><h2 id="setup-h">Setup</h2><dl class="setup">
${corpus}<dt>${ev.corpus_id === undefined ? 'Texts' : 'Recordings'}</dt><dd id="setup-texts">${facts.texts > 0 ? count(facts.texts) : '—'}</dd>
<dt>Speakers</dt><dd id="setup-speakers">${facts.speakers > 0 ? `${count(facts.speakers)} in ${facts.groups.length} ${ev.group_by} group(s): ${groups}` : '—'}</dd>
<dt>Providers</dt><dd>${ev.providers.join(', ')}</dd>
<dt>Conditions</dt><dd>${ev.conditions.join(', ')}</dd>
<dt>Normaliser</dt><dd id="setup-normalizer">${ev.normalizer.name} (version ${ev.normalizer.version})</dd>
<dt>Seed</dt><dd id="setup-seed">${ev.seed}</dd>
<dt>Utterances</dt><dd>${count(ev.completed_utterances)} of ${count(ev.total_utterances)} (${ev.corpus_id === undefined ? 'texts × speakers' : 'recordings'} × conditions × providers)</dd>
<dt>Created</dt><dd>${stamp(ev.created_at)}</dd><dt>Started</dt><dd>${stamp(ev.started_at)}</dd><dt>Finished</dt><dd>${stamp(ev.completed_at)}</dd>
</dl></section>`;
}

function legend(providers: readonly string[], colours: Map<string, string>): SafeHtml {
  // The swatch colour is an SVG presentation attribute: inline style attributes are barred by the CSP.
  return html`<div class="legend">${providers.map((p) => html`<span><svg width="11" height="11" aria-hidden="true"><rect width="11" height="11" rx="2" fill="${colours.get(p)!}"/></svg> ${p}</span>`)}</div>`;
}

function werCharts(ev: EvaluationDetail, summary: readonly EvaluationSummaryRow[], colours: Map<string, string>): SafeHtml[] {
  return ev.conditions.map((condition) => {
    const rows = summary.filter((r) => r.condition === condition && r.wer !== null);
    const bars = rows.map((r) => ({
      group: r.group,
      provider: r.provider,
      colour: colours.get(r.provider) ?? providerColour(0),
      wer: r.wer!,
      ci95: r.wer_ci95 ?? ([r.wer!, r.wer!] as const),
      detail: `${r.utterances} utterances, ${r.speakers} speakers`,
    }));
    const chart = bars.length ? werBarChart({ title: `WER by ${ev.group_by} under ${condition}`, groups: summaryGroups(rows), bars }) : html`<p class="muted">No scored utterance.</p>`;
    return html`<h3>${condition}</h3>${chart}`;
  });
}

function heatCells(summary: readonly EvaluationSummaryRow[]) {
  return summary
    .filter((r) => r.group === 'all' && r.wer !== null)
    .map((r) => ({ provider: r.provider, condition: r.condition, wer: r.wer!, ci95: r.wer_ci95 ?? ([r.wer!, r.wer!] as const) }));
}

function totalsTable(summary: readonly EvaluationSummaryRow[]): SafeHtml {
  const rows = summary.filter((r) => r.group === 'all');
  return html`<table id="totals"><thead><tr><th>Provider</th><th>Condition</th><th>Utterances</th><th>Speakers</th><th>Words</th><th>S / D / I</th><th>WER</th><th>95% CI</th><th>CER</th><th>p50 / p95 ms</th><th>Failed requests</th></tr></thead><tbody>
${rows.map(
  (r) => html`<tr><td>${r.provider}</td><td>${r.condition}</td><td class="num">${count(r.utterances)}</td><td class="num">${r.speakers}</td><td class="num">${count(r.reference_words)}</td>
<td class="num">${r.substitutions} / ${r.deletions} / ${r.insertions}</td><td class="num">${fixed(r.wer)}</td><td class="num">${interval(r.wer_ci95)}</td><td class="num">${fixed(r.cer)}</td>
<td class="num">${r.latency_ms.p50 ?? 'n/a'} / ${r.latency_ms.p95 ?? 'n/a'}</td><td class="num">${r.failed_requests}</td></tr>`,
)}</tbody></table>`;
}

function latencySection(input: EvaluationReportInput, colours: Map<string, string>): SafeHtml {
  const latencies = providerLatencies(input.evaluation.providers, input.utterances);
  const chart = latencies.length
    ? latencyStrips({
        title: 'Transcription latency per provider',
        rows: latencies.map((l) => ({ provider: l.provider, colour: colours.get(l.provider)!, points: l.sample, count: l.count, p50: l.p50, p95: l.p95 })),
      })
    : html`<p class="muted">No transcription has run yet.</p>`;
  return html`<section id="latency" aria-labelledby="lat-h"><h2 id="lat-h">Latency per provider</h2>
<p class="lead">Each dot is one transcription request (all conditions); the solid mark is the median, the dashed one the 95th percentile.</p>${chart}</section>`;
}

function comparisonSection(ev: EvaluationDetail): SafeHtml {
  const comparisons = ev.comparisons ?? [];
  const content =
    ev.providers.length < 2
      ? html`<p class="muted">One provider only: nothing to compare.</p>`
      : !ev.comparisons
        ? pendingNote(ev)
        : html`<table id="comparisons"><thead><tr><th>Condition</th><th>a</th><th>b</th><th>WER a</th><th>WER b</th><th>Difference a − b</th><th>95% CI</th><th>P(a better)</th><th>Verdict</th></tr></thead><tbody>
${comparisons.map(comparisonRow)}</tbody></table>`;
  return html`<section id="comparisons-section" aria-labelledby="cmp-h"><h2 id="cmp-h">Pairwise comparisons</h2>
<p class="lead">Paired bootstrap over speakers on the same audio: a provider is called better only when the 95% interval of the difference excludes 0.</p>${content}</section>`;
}

function comparisonRow(c: EvaluationComparison): SafeHtml {
  const words = verdict(c);
  return html`<tr><td>${c.condition}</td><td>${c.a}</td><td>${c.b}</td><td class="num">${fixed(c.wer_a)}</td><td class="num">${fixed(c.wer_b)}</td>
<td class="num">${c.difference === null ? 'n/a' : (c.difference > 0 ? '+' : '') + c.difference.toFixed(4)}</td><td class="num">${interval(c.ci95)}</td>
<td class="num">${c.p_a_better === null ? 'n/a' : c.p_a_better.toFixed(3)}</td><td class="${words.endsWith(' better') ? 'better' : 'same'}">${words}</td></tr>`;
}

function failureSection(ev: EvaluationDetail, failures: readonly ReportedFailure[]): SafeHtml {
  const empty =
    ev.providers.length < 2
      ? 'A failure is determinable only when another provider transcribed the same audio exactly: with one provider, none is.'
      : 'No determinable failure: every error happened on audio that no other provider transcribed exactly either.';
  return html`<section id="failures" aria-labelledby="fail-h"><h2 id="fail-h">The ${WORST_FAILURES} worst determinable failures</h2>
<p class="lead">Errors on audio another provider transcribed exactly, so the synthetic voice cannot explain them. Worst WER first.</p>
${
  failures.length === 0
    ? html`<p class="muted" id="no-failures">${empty}</p>`
    : html`<p class="align-key">Key: <span class="align"><span class="sub"><s>reference</s> <b>heard</b></span> substitution · <span class="del">missed</span> deletion · <span class="ins">extra</span> insertion</span></p>
<ol class="failures">${failures.map(failureItem)}</ol>`
}</section>`;
}

function failureItem(f: ReportedFailure): SafeHtml {
  const u = f.utterance;
  return html`<li><div class="meta">${u.provider} · ${u.condition} · ${speakerBlock(u)} (${u.group}) · ${u.utterance_id === undefined ? `text ${u.text_index}` : `utterance ${u.utterance_id}`} · WER ${percent(u.wer ?? 0)}</div>
${f.alignment ? html`<p class="align">${alignmentHtml(f.alignment)}</p>` : ''}
<p class="plain"><b>Reference</b>${u.reference}</p><p class="plain"><b>Transcript</b>${u.transcript ?? ''}</p></li>`;
}

/** The word alignment as inline marks: equal words plain, the others highlighted by kind. */
export function alignmentHtml(steps: readonly AlignmentStep[]): SafeHtml[] {
  return steps.map((s) => {
    switch (s.op) {
      case 'equal':
        return html`${s.ref} `;
      case 'substitute':
        return html`<span class="sub" title="substitution"><s>${s.ref}</s> <b>${s.hyp}</b></span> `;
      case 'delete':
        return html`<span class="del" title="deletion">${s.ref}</span> `;
      default:
        return html`<span class="ins" title="insertion">${s.hyp}</span> `;
    }
  });
}
