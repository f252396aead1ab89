/**
 * The report's sections of DESIGN §11: WER against cost per audio hour (§11.6), and, when the evaluation
 * has a baseline, the per-provider change with its paired interval and verdict (§11.3). Inline SVG with
 * presentation attributes only, like the other charts (the page's CSP allows no style attribute).
 */
import type { EvaluationCompare, EvaluationCompareRow, EvaluationSummaryRow } from '../../../../shared/schemas/evaluations.js';
import { html, type SafeHtml } from '../../../html.js';
import { FONT, fitText, fittedText, labelMargin, percent, textWidth, ticks } from './svg.js';

const f1 = (n: number) => n.toFixed(1);
const f4 = (n: number) => n.toFixed(4);

/**
 * A cost per audio hour as the report writes it everywhere (DESIGN §15.7): `$0.36/h`, cents from $0.01 up,
 * two significant digits below (`$0.0043/h`), `$0/h` when free. `digits` forces the decimals (an axis
 * writes all its ticks alike).
 */
export function perHour(usd: number, digits?: number): string {
  const d = digits ?? (usd === 0 ? 0 : usd >= 0.01 ? 2 : Math.min(6, 1 - Math.floor(Math.log10(usd))));
  return `$${usd.toFixed(d)}/h`;
}

/** The decimals every tick of a cost axis of step `step` needs: cents at least, more for finer steps. */
export function axisDigits(step: number): number {
  return Math.max(2, Math.min(6, -Math.floor(Math.log10(step) + 1e-9)));
}

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

/** A label of the cost chart placed beside its point: `anchor` end when it sits left of the dot. */
interface PlacedLabel {
  x: number;
  y: number;
  width: number;
  anchor: 'start' | 'end';
  text: string;
}

const LABEL_H = 12;

/**
 * Places each point's label beside it so that no two labels overlap (DESIGN §15.7): right of the dot, or
 * left when it would pass the plot's right edge; a label that would overlap one already placed moves
 * down, then up, a line at a time, until it is free (points of one provider share a price, so their
 * labels stack). Pure: points in screen coordinates, labels in placement order.
 */
export function placeLabels(points: readonly { x: number; y: number; text: string }[], bounds: { right: number; top: number; bottom: number }): PlacedLabel[] {
  const placed: PlacedLabel[] = [];
  const box = (l: PlacedLabel) => ({ x0: l.anchor === 'start' ? l.x : l.x - l.width, x1: l.anchor === 'start' ? l.x + l.width : l.x, y0: l.y - LABEL_H + 2, y1: l.y + 2 });
  const overlaps = (l: PlacedLabel) => placed.some((o) => {
    const [a, b] = [box(l), box(o)];
    return a.x0 < b.x1 + 2 && b.x0 < a.x1 + 2 && a.y0 < b.y1 && b.y0 < a.y1;
  });
  const order = points.map((p, i) => ({ p, i })).sort((a, b) => a.p.y - b.p.y || a.p.x - b.p.x || a.i - b.i);
  const out: PlacedLabel[] = new Array<PlacedLabel>(points.length);
  for (const { p, i } of order) {
    const width = textWidth(p.text, FONT.value);
    const right = p.x + 8 + width <= bounds.right;
    const base: PlacedLabel = { x: right ? p.x + 8 : p.x - 8, y: p.y + 4, width, anchor: right ? 'start' : 'end', text: p.text };
    let label = base;
    for (let k = 1; overlaps(label) && k < 4 * points.length + 4; k++) {
      const shift = Math.ceil(k / 2) * LABEL_H * (k % 2 === 1 ? 1 : -1);
      const y = Math.min(bounds.bottom, Math.max(bounds.top + LABEL_H, base.y + shift));
      label = { ...base, y };
    }
    placed.push(label);
    out[i] = label;
  }
  return out;
}

/** WER (y) against list price per audio hour (x): lower left is cheap and accurate. */
export function costScatter(opts: { title: string; points: readonly CostPoint[] }): SafeHtml {
  const x0 = 50;
  const w = 620;
  const top = 10;
  const h = 240;
  const xAxis = ticks(Math.max(0.01, ...opts.points.map((p) => p.usdPerHour)));
  const digits = axisDigits(xAxis[1]! - xAxis[0]!);
  const yAxis = ticks(Math.max(0.1, ...opts.points.map((p) => p.wer)));
  const xMax = xAxis[xAxis.length - 1]!;
  const yMax = yAxis[yAxis.length - 1]!;
  const sx = (v: number) => x0 + (v / xMax) * w;
  const sy = (v: number) => top + h - (v / yMax) * h;
  // The last tick is centred on the plot's right edge: half its text must fit right of the plot.
  const right = Math.max(40, textWidth(perHour(xMax, digits), FONT.tick) / 2 + 6);
  const grid = html`${xAxis.map((t) => html`<line class="grid" x1="${f1(sx(t))}" x2="${f1(sx(t))}" y1="${top}" y2="${top + h}"/><text class="tick" x="${f1(sx(t))}" y="${top + h + 14}" text-anchor="middle">${perHour(t, digits)}</text>`)}
${yAxis.map((t) => html`<line class="grid" x1="${x0}" x2="${x0 + w}" y1="${f1(sy(t))}" y2="${f1(sy(t))}"/><text class="tick" x="${x0 - 6}" y="${f1(sy(t) + 4)}" text-anchor="end">${Math.round(t * 100)}%</text>`)}`;
  const texts = opts.points.map((p) => fitText(`${p.provider} · ${p.condition}`, w / 2 - 12, FONT.value));
  const labels = placeLabels(
    opts.points.map((p, i) => ({ x: sx(p.usdPerHour), y: sy(p.wer), text: texts[i]!.shown })),
    { right: x0 + w + right, top, bottom: top + h },
  );
  const dots = opts.points.map((p, i) => {
    const [cx, cy, l] = [sx(p.usdPerHour), sy(p.wer), labels[i]!];
    // A label moved away from its dot is tied to it by a thin line.
    const leader = Math.abs(l.y - 4 - cy) > 6 ? html`<line class="grid" x1="${f1(cx)}" y1="${f1(cy)}" x2="${f1(l.anchor === 'start' ? l.x - 2 : l.x + 2)}" y2="${f1(l.y - 4)}"/>` : '';
    return html`<g data-provider="${p.provider}"><title>${p.provider} · ${p.condition}: WER ${percent(p.wer)} at ${perHour(p.usdPerHour)}</title>
${leader}<circle cx="${f1(cx)}" cy="${f1(cy)}" r="5" fill="${p.colour}" fill-opacity="0.8"/>
<text class="value" x="${f1(l.x)}" y="${f1(l.y)}"${l.anchor === 'end' ? html` text-anchor="end"` : ''}>${texts[i]!.full ? html`<title>${texts[i]!.full}</title>` : ''}${l.text}</text></g>`;
  });
  return html`<svg class="chart" viewBox="0 0 ${x0 + w + right} ${top + h + 34}" width="100%" role="img" aria-label="${opts.title}"><title>${opts.title}</title>
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
<p class="lead">Each point is a provider under a condition (group “all”), placed by the list price per audio hour of its binding (its price per minute × 60) and its corpus WER. Prices are what the server config says, not what a vendor billed.</p>${chart}${note}</section>`;
}

/** One provider's change against the baseline: a dot at the difference and its 95% interval around zero. */
function changeChart(rows: readonly EvaluationCompareRow[]): SafeHtml {
  const labelW = labelMargin(rows.map((r) => `${r.provider} · ${r.condition}`));
  const w = 420;
  const rowH = 26;
  const top = 8;
  const bottom = top + rows.length * rowH;
  const reach = Math.max(0.01, ...rows.flatMap((r) => [Math.abs(r.ci95[0]), Math.abs(r.ci95[1]), Math.abs(r.difference)]));
  const sx = (v: number) => labelW + w / 2 + (v / reach) * (w / 2 - 10);
  const lines = rows.map((r, i) => {
    const y = top + i * rowH + rowH / 2;
    const colour = r.verdict === 'regressed' ? '#c62828' : r.verdict === 'improved' ? '#2e7d32' : '#555';
    return html`<g data-provider="${r.provider}"><title>${r.provider} · ${r.condition}: ${r.verdict}, difference ${f4(r.difference)} (95% CI ${f4(r.ci95[0])}–${f4(r.ci95[1])})</title>
${fittedText(html`class="label" x="${labelW - 8}" y="${y + 4}" text-anchor="end"`, `${r.provider} · ${r.condition}`, labelW - 14, FONT.label)}
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
