/**
 * The evaluation report (DESIGN §8.5): one self-contained HTML page — inline SVG charts, one hashed
 * stylesheet, no script, no external asset — served by the signed report route and saved by
 * `voxctl eval report`. Every text of the page is escaped: references and transcripts are user data.
 */
import { providerLabel } from '../../../../shared/providers.js';
import type { AlignmentStep } from '../../../../shared/accuracy.js';
import type { EvaluationComparison, EvaluationDetail, EvaluationReportInput, EvaluationSummaryRow } from '../../../../shared/schemas/evaluations.js';
import { html, SafeHtml } from '../../../html.js';
import { verdict } from '../../../../shared/comparison-verdict.js';
import { conditionCaveat } from '../../../../shared/providers.js';
import {
  FEW_SPEAKERS,
  fewSpeakerGroups,
  providerLatencies,
  reportWerMax,
  setupFacts,
  speakerBlock,
  speakerRows,
  summaryGroups,
  worstFailures,
  WORST_FAILURES,
  type ReportedFailure,
} from './data.js';
import { REPORT_STYLE } from './style.js';
import { heatMap, latencyStrips, percent, providerColour, providerColours, werBarChart } from './svg.js';
import { baselineSection, costSection, perHour } from './over-time.js';
import { costPerHour, sourceWords, verdictSection, type SourceWords } from './verdict.js';
import { streamingSection } from './streaming.js';
import { probeSections } from './probes.js';
import { conversationSection } from './conversations.js';

/** Renders the whole report page of an evaluation at `generatedAt`. */
export function renderEvaluationReport(all: EvaluationReportInput): string {
  const { evaluation: ev, utterances, generatedAt } = all;
  // Non-speech clips are no speaker's and have no reference: only their own panel shows them.
  const input: EvaluationReportInput = { ...all, utterances: utterances.filter((u) => u.kind === undefined) };
  const title = `Evaluation ${ev.name ?? ev.evaluation_id}`;
  const summary = ev.summary ?? [];
  // Each provider's own colour, whatever its position (DESIGN §15.7).
  const colours = providerColours(ev.providers);
  const colour = (p: string) => colours.get(p) ?? providerColour(p);
  const adapter = (p: string) => input.adapters?.[p] ?? ev.setup.providers[p]?.adapter ?? (p === 'local-sphinx' ? 'local-sphinx' : null);
  const view: PageView = {
    label: (p) => ev.provider_labels?.[p] ?? p,
    few: fewSpeakerGroups(setupFacts(input.utterances)),
    caveat: (p, condition) => conditionCaveat(adapter(p), condition),
    words: sourceWords(ev),
  };
  const body = html`
<header><div><h1>${title}</h1><p>${ev.evaluation_id} · <span class="badge ${ev.status}" id="status">${ev.status}</span> · generated ${stamp(generatedAt.toISOString())}</p></div></header>
<main>
${verdictSection(ev, { label: view.label, adapter, prices: input.prices ?? {}, colour })}
${stateNotice(ev)}
${setupSection(input)}
<section id="wer-by-group" aria-labelledby="wer-h"><h2 id="wer-h">WER by ${ev.group_by} per provider</h2>
<p class="lead">Corpus WER (all errors ÷ all reference words) per group value; whiskers are 95% intervals from 1,000 bootstrap resamples of speakers.</p>
${ev.summary ? html`${legend(ev.providers, colours, view)}${werCharts(ev, summary, colours, view)}${fewNote(view)}` : pendingNote(ev)}</section>
<section id="heat-map" aria-labelledby="heat-h"><h2 id="heat-h">Provider × condition</h2>
<p class="lead">WER over every group (group “all”); darker is worse.</p>
${ev.summary ? html`${heatMap({ title: 'WER by provider and condition', providers: ev.providers, conditions: ev.conditions, cells: heatCells(summary), label: view.label })}${totalsTable(summary, view, input.prices ?? {})}` : pendingNote(ev)}</section>
${conversationSection(ev, input.utterances, input.calls ?? [], { label: view.label })}
${streamingSection(ev, utterances, { label: view.label, colour })}
${probeSections(ev, utterances, view.label)}
${latencySection(input, colours, view)}
${costSection({ summary: ev.summary, providers: ev.providers, prices: input.prices ?? {}, colours })}
${baselineSection(ev.baseline_id, input.baseline)}
${comparisonSection(ev, view)}
${speakerSection(input, view)}
${failureSection(ev, worstFailures(ev, input.utterances), view)}
</main>`;
  return layout(title, body);
}

/** How the page names providers, which groups it marks, and the caveats it attaches to rows. */
interface PageView {
  label(provider: string): string;
  /** Group values with fewer than FEW_SPEAKERS speakers. */
  few: ReadonlySet<string>;
  caveat(provider: string, condition: string): string | undefined;
  /** Recordings or synthetic voices: the page's words fit its source (DESIGN §15.7). */
  words: SourceWords;
}

const groupName = (group: string, view: PageView) => (view.few.has(group) ? `${group} †` : group);

function fewNote(view: PageView): SafeHtml | string {
  if (view.few.size === 0) return '';
  return html`<p class="muted" id="few-speakers">† fewer than ${FEW_SPEAKERS} speakers (${[...view.few].sort().join(', ')}): the interval of such a group is little more than the range of its ${view.words.corpus ? "speakers' recordings" : view.words.plural}.</p>`;
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
<dt>Providers</dt><dd id="setup-providers">${ev.providers.map((p) => setupProviderLabel(p, ev, input.prices?.[p]))
    .join(', ')}</dd>
<dt>voxctl</dt><dd id="setup-version">${ev.setup.voxctl_version ?? 'not recorded'}</dd>
<dt>Conditions</dt><dd>${ev.conditions.join(', ')}</dd>
<dt>Normaliser</dt><dd id="setup-normalizer">${ev.normalizer.name} (version ${ev.normalizer.version})</dd>
<dt>Seed</dt><dd id="setup-seed">${ev.seed}</dd>
${ev.probes ? html`<dt>Probes</dt><dd id="setup-probes">${probeSummary(ev)}</dd>
` : ''}<dt>Mode</dt><dd id="setup-mode">${ev.mode === 'streaming' ? `streaming, streamed at pace ${ev.pace ?? 1}` : 'batch'}</dd>
<dt>Utterances</dt><dd>${count(ev.completed_utterances)} of ${count(ev.total_utterances)} (${ev.corpus_id === undefined ? 'texts × speakers' : 'recordings'} × conditions × providers)</dd>
<dt>Created</dt><dd>${stamp(ev.created_at)}</dd><dt>Started</dt><dd>${stamp(ev.started_at)}</dd><dt>Finished</dt><dd>${stamp(ev.completed_at)}</dd>
</dl></section>`;
}

/** The probes asked for, in one line of the setup. */
function probeSummary(ev: EvaluationDetail): string {
  const p = ev.probes!;
  return [
    p.non_speech ? `non-speech: ${p.non_speech.clips} clips of ${p.non_speech.seconds} s` : '',
    p.entities ? `entities: ${p.entities.types.join(', ')} × ${p.entities.per_type}` : '',
    p.keyterms ? `keyterms: ${p.keyterms.terms.length} term(s)` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/**
 * `stt-b · deepgram nova-3 (en) · $0.0043/min`: from the recorded setup (what produced these numbers);
 * an evaluation made before setups were recorded falls back to the current binding's label.
 */
function setupProviderLabel(token: string, ev: EvaluationDetail, price: number | null | undefined): string {
  const p = ev.setup.providers[token];
  const label = p?.adapter
    ? `${providerLabel({ id: token, adapter: p.adapter, model: p.model })}${p.language ? ` (${p.language})` : ''}`
    : (ev.provider_labels?.[token] ?? token);
  return `${label}${price === null || price === undefined ? '' : ` · ${perHour(price * 60)}`}`;
}

function legend(providers: readonly string[], colours: Map<string, string>, view: PageView): SafeHtml {
  // The swatch colour is an SVG presentation attribute: inline style attributes are barred by the CSP.
  return html`<div class="legend">${providers.map((p) => html`<span data-provider="${p}"><svg width="11" height="11" aria-hidden="true"><rect width="11" height="11" rx="2" fill="${colours.get(p)!}"/></svg> ${view.label(p)}</span>`)}</div>`;
}

function werCharts(ev: EvaluationDetail, summary: readonly EvaluationSummaryRow[], colours: Map<string, string>, view: PageView): SafeHtml[] {
  const max = reportWerMax(summary);
  return ev.conditions.map((condition) => {
    const rows = summary.filter((r) => r.condition === condition && r.wer !== null);
    const bars = rows.map((r) => ({
      group: r.group,
      provider: r.provider,
      colour: colours.get(r.provider) ?? providerColour(r.provider),
      wer: r.wer!,
      ci95: r.wer_ci95 ?? ([r.wer!, r.wer!] as const),
      detail: `${r.utterances} utterances, ${r.speakers} speakers`,
    }));
    const chart = bars.length
      ? werBarChart({ title: `WER by ${ev.group_by} under ${condition}`, groups: summaryGroups(rows), bars, max, marked: view.few })
      : html`<p class="muted">No scored utterance.</p>`;
    return html`<h3>${condition}</h3>${chart}`;
  });
}

function heatCells(summary: readonly EvaluationSummaryRow[]) {
  return summary
    .filter((r) => r.group === 'all' && r.wer !== null)
    .map((r) => ({ provider: r.provider, condition: r.condition, wer: r.wer!, ci95: r.wer_ci95 ?? ([r.wer!, r.wer!] as const) }));
}

function totalsTable(summary: readonly EvaluationSummaryRow[], view: PageView, prices: Readonly<Record<string, number | null>>): SafeHtml {
  const rows = summary.filter((r) => r.group === 'all');
  const caveats = [...new Set(rows.flatMap((r) => view.caveat(r.provider, r.condition) ?? []))];
  const mark = (r: EvaluationSummaryRow) => {
    const c = view.caveat(r.provider, r.condition);
    return c === undefined ? '' : html` <sup class="caveat" title="${c}">${caveats.indexOf(c) + 1}</sup>`;
  };
  return html`<table id="totals"><thead><tr><th>Provider</th><th>Condition</th><th>Utterances</th><th>Speakers</th><th>Words</th><th>S / D / I</th><th>WER</th><th>95% CI</th><th>CER</th><th>p50 / p95 ms</th><th>Failed requests</th><th>Audio s</th><th>Cost per audio hour</th><th>RTFx</th></tr></thead><tbody>
${rows.map(
  (r) => html`<tr${view.caveat(r.provider, r.condition) ? html` class="caveat"` : ''}><td>${view.label(r.provider)}</td><td>${r.condition}${mark(r)}</td><td class="num">${count(r.utterances)}</td><td class="num">${r.speakers}</td><td class="num">${count(r.reference_words)}</td>
<td class="num">${r.substitutions} / ${r.deletions} / ${r.insertions}</td><td class="num">${fixed(r.wer)}</td><td class="num">${interval(r.wer_ci95)}</td><td class="num">${fixed(r.cer)}</td>
<td class="num">${r.latency_ms.p50 ?? 'n/a'} / ${r.latency_ms.p95 ?? 'n/a'}</td><td class="num">${r.failed_requests} of ${attempted(r)}</td>
<td class="num">${r.audio_seconds ?? 'n/a'}</td><td class="num">${usdPerHour(costPerHour(r, prices))}</td><td class="num">${r.rtfx ?? 'n/a'}</td></tr>`,
)}</tbody></table>${caveats.map((c, i) => html`<p class="muted caveat-note" id="caveat-${i + 1}"><sup>${i + 1}</sup> ${c}</p>`)}`;
}

/** Utterances sent to the provider (DESIGN §15.2); rows stored before `attempted` existed: scored plus failed. */
const attempted = (r: EvaluationSummaryRow) => (r as Partial<Pick<EvaluationSummaryRow, 'attempted'>>).attempted ?? r.utterances + r.failed_requests;
const usdPerHour = (x: number | null) => (x === null ? 'unpriced' : perHour(x));

function latencySection(input: EvaluationReportInput, colours: Map<string, string>, view: PageView): SafeHtml {
  const latencies = providerLatencies(input.evaluation.providers, input.utterances);
  const chart = latencies.length
    ? latencyStrips({
        title: 'Transcription latency per provider',
        rows: latencies.map((l) => ({ provider: l.provider, label: view.label(l.provider), colour: colours.get(l.provider) ?? providerColour(l.provider), points: l.sample, count: l.count, p50: l.p50, p95: l.p95 })),
      })
    : html`<p class="muted">No transcription has run yet.</p>`;
  return html`<section id="latency" aria-labelledby="lat-h"><h2 id="lat-h">Latency per provider</h2>
<p class="lead">Each dot is one transcription request (all conditions); the solid mark is the median, the dashed one the 95th percentile.</p>${chart}</section>`;
}

function comparisonSection(ev: EvaluationDetail, view: PageView): SafeHtml {
  const comparisons = ev.comparisons ?? [];
  const groups = summaryGroups(comparisons);
  const content =
    ev.providers.length < 2
      ? html`<p class="muted">One provider only: nothing to compare.</p>`
      : !ev.comparisons
        ? pendingNote(ev)
        : groups.map((group) => {
            const table = html`<table class="comparisons" id="${group === 'all' ? 'comparisons' : `comparisons-${group}`}"><thead><tr><th>Condition</th><th>a</th><th>b</th><th>WER a</th><th>WER b</th><th>Difference a − b</th><th>95% CI</th><th>P(a better)</th><th>P(equal)</th><th>Verdict</th></tr></thead><tbody>
${comparisons.filter((c) => c.group === group).map((c) => comparisonRow(c, view))}</tbody></table>`;
            // A single group value's table is detail: collapsed, so group `all` reads first (DESIGN §15.7).
            return group === 'all'
              ? html`<h3>All speakers</h3>${table}`
              : html`<details class="group-comparisons"><summary>${ev.group_by} ${groupName(group, view)}</summary>${table}</details>`;
          });
  return html`<section id="comparisons-section" aria-labelledby="cmp-h"><h2 id="cmp-h">Pairwise comparisons</h2>
<p class="lead">Paired bootstrap over speakers on the same audio, for all speakers and within each group: a provider is called better only when the 95% interval of the difference excludes 0; equal WERs in every draw are a tie.</p>${content}${fewNote(view)}</section>`;
}

function comparisonRow(c: EvaluationComparison, view: PageView): SafeHtml {
  const words = verdict(c);
  const share = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : x.toFixed(3));
  return html`<tr><td>${c.condition}</td><td>${view.label(c.a)}</td><td>${view.label(c.b)}</td><td class="num">${fixed(c.wer_a)}</td><td class="num">${fixed(c.wer_b)}</td>
<td class="num">${c.difference === null ? 'n/a' : (c.difference > 0 ? '+' : '') + c.difference.toFixed(4)}</td><td class="num">${interval(c.ci95)}</td>
<td class="num">${share(c.p_a_better)}</td><td class="num">${share(c.p_equal)}</td><td class="${words.endsWith(' better') ? 'better' : 'same'}">${words}</td></tr>`;
}

function speakerSection(input: EvaluationReportInput, view: PageView): SafeHtml {
  const ev = input.evaluation;
  const rows = speakerRows(ev, input.utterances);
  const content = rows.length
    ? html`<table id="speakers"><thead><tr><th>Speaker</th><th>${ev.group_by}</th><th>Condition</th>${ev.providers.map((p) => html`<th>${view.label(p)}</th>`)}</tr></thead><tbody>
${rows.map(
  (r) => html`<tr><td>${r.speaker}</td><td>${groupName(r.group, view)}</td><td>${r.condition}</td>${r.wer.map((w) => html`<td class="num">${w === null ? 'n/a' : percent(w)}</td>`)}</tr>`,
)}</tbody></table>`
    : html`<p class="muted">No utterance has run yet.</p>`;
  return html`<section id="per-speaker" aria-labelledby="spk-h"><h2 id="spk-h">WER per speaker</h2>
<p class="lead">${
    view.words.corpus
      ? "Corpus WER of each provider over each speaker's recordings: a speaker every provider gets wrong points at the recordings, one that a single provider gets wrong at the provider."
      : "Corpus WER of each provider over each synthetic voice's texts: a voice that every provider gets wrong points at the voice, one that a single provider gets wrong at the provider."
  }</p>${content}</section>`;
}

function failureSection(ev: EvaluationDetail, failures: readonly ReportedFailure[], view: PageView): SafeHtml {
  const empty =
    ev.providers.length < 2
      ? 'A failure is determinable only when another provider transcribed the same audio exactly: with one provider, none is.'
      : 'No determinable failure: every error happened on audio that no other provider transcribed exactly either.';
  return html`<section id="failures" aria-labelledby="fail-h"><h2 id="fail-h">The ${WORST_FAILURES} worst determinable failures</h2>
<p class="lead">Errors on ${view.words.corpus ? 'recordings' : 'audio'} another provider transcribed exactly, so the ${view.words.plural} cannot explain them. Worst WER first.</p>
${
  failures.length === 0
    ? html`<p class="muted" id="no-failures">${empty}</p>`
    : html`<p class="align-key">Key: <span class="align"><span class="sub"><s>reference</s> <b>heard</b></span> substitution · <span class="del">missed</span> deletion · <span class="ins">extra</span> insertion</span></p>
<ol class="failures">${failures.map((f) => failureItem(f, view))}</ol>`
}</section>`;
}

function failureItem(f: ReportedFailure, view: PageView): SafeHtml {
  const u = f.utterance;
  // The signed URL of the audio the providers heard (24 h, like the page's own link).
  const listen = u.audio_url ? html` · <a class="listen" href="${u.audio_url}">hear the clip</a>` : '';
  const item = u.utterance_id === undefined ? `text ${u.text_index}` : `utterance ${u.utterance_id}`;
  return html`<li><div class="meta">${view.label(u.provider)} · ${u.condition} · ${speakerBlock(u)} (${u.group}) · ${item} · WER ${percent(u.wer ?? 0)}${listen}</div>
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
