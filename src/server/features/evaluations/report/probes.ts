/**
 * The report's probe panels (DESIGN §12): "speaks on silence" per provider (hallucination rate with its
 * interval, words per minute, by kind), the entity panel (accuracy per type and the worst misses with
 * what was heard), and keyterm lift (recall and false positives without and with boosting). Nothing
 * for an evaluation without probes.
 */
import type { EvaluationDetail, EvaluationSummaryRow, EvaluationUtterance } from '../../../../shared/schemas/evaluations.js';
import { html, type SafeHtml } from '../../../html.js';

/** Entity misses listed in the report, at most. */
export const WORST_ENTITY_MISSES = 20;

const pct = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : `${(x * 100).toFixed(1)}%`);
const ci = (c: readonly [number, number] | null | undefined) => (c ? `${pct(c[0])} – ${pct(c[1])}` : 'n/a');

/** The entity misses to show: entity sentences whose entity did not come back, grouped by type, then provider. */
export function entityMisses(utterances: readonly EvaluationUtterance[], limit = WORST_ENTITY_MISSES): EvaluationUtterance[] {
  return utterances
    .filter((u) => u.entity && u.entity.found === false)
    .sort((a, b) => a.entity!.type.localeCompare(b.entity!.type) || a.provider.localeCompare(b.provider) || a.text_index - b.text_index)
    .slice(0, limit);
}

/** The three panels, or nothing without probes. */
export function probeSections(ev: EvaluationDetail, utterances: readonly EvaluationUtterance[], label: (provider: string) => string): SafeHtml | string {
  if (!ev.probes) return '';
  if (!ev.summary) return html`<section id="probes" aria-labelledby="probes-h"><h2 id="probes-h">Probes</h2><p class="muted">No summary: the evaluation is ${ev.status}.</p></section>`;
  const clean = ev.summary.filter((r) => r.condition === 'clean' && r.group === 'all');
  return html`${ev.probes.non_speech ? silencePanel(ev, clean, label) : ''}${ev.probes.entities ? entityPanel(ev, utterances, label) : ''}${ev.probes.keyterms ? keytermPanel(ev, clean, label) : ''}`;
}

function silencePanel(ev: EvaluationDetail, rows: readonly EvaluationSummaryRow[], label: (p: string) => string): SafeHtml {
  const ns = ev.probes!.non_speech!;
  const kinds = ns.kinds ?? [];
  return html`<section id="speaks-on-silence" aria-labelledby="silence-h"><h2 id="silence-h">Speaks on silence</h2>
<p class="lead">${ns.clips ?? 20} seeded clips of ${ns.seconds ?? 5} s with no speech (${kinds.join(', ')}), sent once to every provider without boosting. Any word after normalisation is a hallucination; the interval resamples clips.</p>
<table id="non-speech"><thead><tr><th>Provider</th><th>Clips with words</th><th>Hallucination rate</th><th>95% CI</th><th>Words per minute</th>${kinds.map((k) => html`<th>${k}</th>`)}</tr></thead><tbody>
${rows.map((r) => {
  const n = r.non_speech;
  return html`<tr><td>${label(r.provider)}</td><td class="num">${n ? `${n.clips_with_words} of ${n.clips}` : 'n/a'}</td><td class="num">${pct(n?.hallucination_rate)}</td><td class="num">${ci(n?.ci95)}</td><td class="num">${n?.words_per_minute ?? 'n/a'}</td>${kinds.map((k) => html`<td class="num">${pct(n?.by_kind[k])}</td>`)}</tr>`;
})}</tbody></table></section>`;
}

function entityPanel(ev: EvaluationDetail, utterances: readonly EvaluationUtterance[], label: (p: string) => string): SafeHtml {
  const types = ev.probes!.entities!.types;
  const rows = (ev.summary ?? []).filter((r) => r.group === 'all');
  const misses = entityMisses(utterances);
  return html`<section id="entities" aria-labelledby="entities-h"><h2 id="entities-h">Entities</h2>
<p class="lead">Seeded sentences each holding one entity, read in its spoken form; an entity is recovered when its canonical value is found in the transcript after entity-aware normalisation. Intervals resample speakers.</p>
<table id="entity-accuracy"><thead><tr><th>Provider</th><th>Condition</th>${types.map((t) => html`<th>${t}</th>`)}</tr></thead><tbody>
${rows.map(
  (r) =>
    html`<tr><td>${label(r.provider)}</td><td>${r.condition}</td>${types.map((t) => {
      const e = r.entities?.[t];
      return html`<td class="num">${e ? `${pct(e.accuracy)} (${e.found}/${e.total}) · ${ci(e.ci95)}` : 'n/a'}</td>`;
    })}</tr>`,
)}</tbody></table>
${
  misses.length
    ? html`<h3>Worst misses</h3><table id="entity-misses"><thead><tr><th>Type</th><th>Expected</th><th>Provider</th><th>Condition</th><th>Said</th><th>Heard</th></tr></thead><tbody>
${misses.map((u) => html`<tr><td>${u.entity!.type}</td><td><code>${u.entity!.value}</code></td><td>${label(u.provider)}</td><td>${u.condition}</td><td>${u.reference}</td><td>${u.transcript ?? (u.error ? `[${u.error.code}]` : '')}</td></tr>`)}</tbody></table>`
    : html`<p class="muted">Every entity was recovered.</p>`
}</section>`;
}

function keytermPanel(ev: EvaluationDetail, rows: readonly EvaluationSummaryRow[], label: (p: string) => string): SafeHtml {
  const terms = ev.probes!.keyterms!.terms;
  return html`<section id="keyterms" aria-labelledby="keyterms-h"><h2 id="keyterms-h">Keyterm lift</h2>
<p class="lead">Every utterance heard twice, without and with the vendor's own boosting of ${terms.length} term(s): ${terms.slice(0, 12).join(', ')}${terms.length > 12 ? ', …' : ''}. Recall counts term occurrences transcribed exactly; a false positive is a term in a transcript whose reference lacks it; WER other is on the remaining words.</p>
<table id="keyterm-lift"><thead><tr><th>Provider</th><th>Occurrences</th><th>Recall without → with</th><th>False positives without → with</th><th>WER other without → with</th></tr></thead><tbody>
${rows.map((r) => {
  const k = r.keyterms;
  if (!k) return '';
  if ('unsupported' in k) return html`<tr><td>${label(r.provider)}</td><td colspan="4" class="muted">unsupported: the vendor has no boosting parameter</td></tr>`;
  const w = (x: number | null) => (x === null ? 'n/a' : x.toFixed(4));
  return html`<tr><td>${label(r.provider)}</td><td class="num">${k.occurrences}</td><td class="num">${pct(k.recall_without)} → ${pct(k.recall_with)}</td><td class="num">${k.false_positives_without} → ${k.false_positives_with}</td><td class="num">${w(k.wer_other_without)} → ${w(k.wer_other_with)}</td></tr>`;
})}</tbody></table></section>`;
}
