/**
 * The report's sections of DESIGN §11: WER against cost per audio hour (§11.6), and, when the evaluation
 * has a baseline, the per-provider change with its paired interval and verdict (§11.3). Inline SVG with
 * presentation attributes only, like the other charts (the page's CSP allows no style attribute).
 */
import type { EvaluationCompare, EvaluationCompareRow, EvaluationSummaryRow } from '../../shared/schemas/evaluations.js';
import { html, type SafeHtml } from '../html.js';
import { percent, ticks } from './report-svg.js';

const f1 = (n: number) => n.toFixed(1);
const f4 = (n: number) => n.toFixed(4);
const usd = (n: number) => (n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(n >= 0.01 ? 3 : 4)}`);

/** A provider × condition placed by its price per audio hour and its WER (group `all`). */
export interface CostPoint {
  provider: string;
  condition: string;
  colour: string;
  wer: number;
  usdPerHour: number;
}

/** The points of the cost chart: priced providers' group-`all` rows that have a WER. */
export function costPoints(summary: readonly EvaluationSummaryRow[], prices: Readonly<Record<string, number | null>>, colours: ReadonlyMap<string, string>): CostPoint[] {
  return summary.flatMap((r) => {
    const price = prices[r.provider];
    if (r.group !== 'all' || r.wer === null || price === null || price === undefined) return [];
    return [{ provider: r.provider, condition: r.condition, colour: colours.get(r.provider) ?? '#555', wer: r.wer, usdPerHour: price * 60 }];
  });
}

/** WER (y) against list price per audio hour (x): lower left is cheap and accurate. */
export function costScatter(opts: { title: string; points: readonly CostPoint[] }): SafeHtml {
  const x0 = 70;
  const w = 520;
  const top = 10;
  const h = 240;
  const xAxis = ticks(Math.max(0.01, ...opts.points.map((p) => p.usdPerHour)));
  const yAxis = ticks(Math.max(0.1, ...opts.points.map((p) => p.wer)));
  const xMax = xAxis[xAxis.length - 1]!;
  const yMax = yAxis[yAxis.length - 1]!;
  const sx = (v: number) => x0 + (v / xMax) * w;
  const sy = (v: number) => top + h - (v / yMax) * h;
  const grid = html`${xAxis.map((t) => html`<line class="grid" x1="${f1(sx(t))}" x2="${f1(sx(t))}" y1="${top}" y2="${top + h}"/><text class="tick" x="${f1(sx(t))}" y="${top + h + 14}" text-anchor="middle">${usd(t)}</text>`)}
${yAxis.map((t) => html`<line class="grid" x1="${x0}" x2="${x0 + w}" y1="${f1(sy(t))}" y2="${f1(sy(t))}"/><text class="tick" x="${x0 - 6}" y="${f1(sy(t) + 4)}" text-anchor="end">${Math.round(t * 100)}%</text>`)}`;
  const dots = opts.points.map(
    (p) => html`<g><title>${p.provider} · ${p.condition}: WER ${percent(p.wer)} at ${usd(p.usdPerHour)} per audio hour</title>
<circle cx="${f1(sx(p.usdPerHour))}" cy="${f1(sy(p.wer))}" r="5" fill="${p.colour}" fill-opacity="0.8"/>
<text class="value" x="${f1(sx(p.usdPerHour) + 8)}" y="${f1(sy(p.wer) + 4)}">${p.provider} · ${p.condition}</text></g>`,
  );
  return html`<svg class="chart" viewBox="0 0 ${x0 + w + 160} ${top + h + 34}" width="100%" role="img" aria-label="${opts.title}"><title>${opts.title}</title>
${grid}<text class="tick" x="${x0 + w / 2}" y="${top + h + 30}" text-anchor="middle">list price per audio hour (USD)</text>${dots}</svg>`;
}

/** The cost section: the chart, and which providers have no price in the server config. */
export function costSection(input: { summary: readonly EvaluationSummaryRow[] | undefined; providers: readonly string[]; prices: Readonly<Record<string, number | null>>; colours: ReadonlyMap<string, string> }): SafeHtml {
  const points = costPoints(input.summary ?? [], input.prices, input.colours);
  const unpriced = input.providers.filter((p) => input.prices[p] === null || input.prices[p] === undefined);
  const chart = points.length
    ? costScatter({ title: 'WER against list price per audio hour', points })
    : html`<p class="muted" id="no-cost">No provider has a price: add <code>price_per_minute_usd</code> to its binding in the server config.</p>`;
  const note = unpriced.length && points.length ? html`<p class="muted">Not priced: ${unpriced.join(', ')}.</p>` : '';
  return html`<section id="cost" aria-labelledby="cost-h"><h2 id="cost-h">WER against cost</h2>
<p class="lead">Each point is a provider under a condition (group “all”), placed by the list price per minute of its binding (× 60) and its corpus WER. Prices are what the server config says, not what a vendor billed.</p>${chart}${note}</section>`;
}

/** One provider's change against the baseline: a dot at the difference and its 95% interval around zero. */
function changeChart(rows: readonly EvaluationCompareRow[]): SafeHtml {
  const labelW = 200;
  const w = 420;
  const rowH = 26;
  const top = 8;
  const bottom = top + rows.length * rowH;
  const reach = Math.max(0.01, ...rows.flatMap((r) => [Math.abs(r.ci95[0]), Math.abs(r.ci95[1]), Math.abs(r.difference)]));
  const sx = (v: number) => labelW + w / 2 + (v / reach) * (w / 2 - 10);
  const lines = rows.map((r, i) => {
    const y = top + i * rowH + rowH / 2;
    const colour = r.verdict === 'regressed' ? '#c62828' : r.verdict === 'improved' ? '#2e7d32' : '#555';
    return html`<g><title>${r.provider} · ${r.condition}: ${r.verdict}, difference ${f4(r.difference)} (95% CI ${f4(r.ci95[0])}–${f4(r.ci95[1])})</title>
<text class="label" x="${labelW - 8}" y="${y + 4}" text-anchor="end">${r.provider} · ${r.condition}</text>
<line class="whisker" x1="${f1(sx(r.ci95[0]))}" x2="${f1(sx(r.ci95[1]))}" y1="${y}" y2="${y}" stroke="${colour}"/>
<circle cx="${f1(sx(r.difference))}" cy="${y}" r="4" fill="${colour}"/></g>`;
  });
  return html`<svg class="chart" viewBox="0 0 ${labelW + w + 20} ${bottom + 22}" width="100%" role="img" aria-label="Change in WER against the baseline"><title>Change in WER against the baseline</title>
<line class="p50" x1="${f1(sx(0))}" x2="${f1(sx(0))}" y1="${top}" y2="${bottom}"/><text class="tick" x="${f1(sx(0))}" y="${bottom + 14}" text-anchor="middle">no change</text>
<text class="tick" x="${labelW + 4}" y="${bottom + 14}">better</text><text class="tick" x="${labelW + w - 4}" y="${bottom + 14}" text-anchor="end">worse</text>${lines}</svg>`;
}

/** The baseline section: what changed in the setup, and each provider's change (group `all`) with interval and verdict. */
export function baselineSection(baselineId: string | null, cmp: EvaluationCompare | undefined): SafeHtml | string {
  if (!baselineId) return '';
  if (!cmp) {
    return html`<section id="baseline" aria-labelledby="base-h"><h2 id="base-h">Against baseline ${baselineId}</h2>
<p class="muted">No comparison yet: both evaluations must be finished, use the same normaliser and share utterances.</p></section>`;
  }
  const rows = cmp.rows.filter((r) => r.group === 'all');
  const changed = cmp.changed_setup.length ? html`<ul id="changed-setup">${cmp.changed_setup.map((c) => html`<li>${c}</li>`)}</ul>` : html`<p id="changed-setup">The recorded setup is the same.</p>`;
  return html`<section id="baseline" aria-labelledby="base-h"><h2 id="base-h">Against baseline ${cmp.baseline_id}</h2>
<p class="lead">${cmp.matched_utterances} utterances matched (same text, speaker, condition and provider). The interval is a paired bootstrap over speakers: a change is named only when it excludes zero.</p>
${changed}${changeChart(rows)}
<table id="baseline-rows"><thead><tr><th>Provider</th><th>Condition</th><th>Utterances</th><th>WER baseline</th><th>WER</th><th>Difference</th><th>95% CI</th><th>P(worse)</th><th>Verdict</th></tr></thead><tbody>
${rows.map(
  (r) => html`<tr><td>${r.provider}</td><td>${r.condition}</td><td class="num">${r.utterances}</td><td class="num">${f4(r.wer_baseline)}</td><td class="num">${f4(r.wer)}</td>
<td class="num">${(r.difference > 0 ? '+' : '') + f4(r.difference)}</td><td class="num">${f4(r.ci95[0])} – ${f4(r.ci95[1])}</td><td class="num">${r.p_worse.toFixed(3)}</td><td class="${r.verdict}">${r.verdict}</td></tr>`,
)}</tbody></table></section>`;
}
