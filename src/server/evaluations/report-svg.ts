/**
 * Inline SVG charts of the evaluation report. Plain markup with presentation attributes and classes,
 * no script and no `style` attribute, so the page keeps a strict CSP (styles allowed by hash only) and
 * prints like it draws. Every label goes through the escaping `html` template.
 */
import { html, type SafeHtml } from '../html.js';

/** Colour-blind-safe palette (Okabe–Ito, then Tol's muted) for up to 10 providers, in request order. */
export const PROVIDER_COLOURS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#332288', '#999933', '#882255', '#44aa99'];

/** The colour of the `index`-th provider. */
export const providerColour = (index: number): string => PROVIDER_COLOURS[index % PROVIDER_COLOURS.length]!;

/** A WER (fraction) as a percentage with one decimal, e.g. `34.5%`. */
export const percent = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** A round step near `max / count` (1, 2 or 5 × 10ⁿ) for axis ticks. */
export function niceStep(max: number, count = 5): number {
  const raw = max / count;
  if (!(raw > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

/** Ticks from 0 to the first multiple of the step at or above `max`. */
export function ticks(max: number, count = 5): number[] {
  const step = niceStep(max, count);
  const top = Math.max(step, Math.ceil(max / step - 1e-9) * step);
  const out: number[] = [];
  for (let t = 0; t <= top + step / 2; t += step) out.push(Number(t.toPrecision(12)));
  return out;
}

const f1 = (n: number) => n.toFixed(1);

/** A vertical grid line and its label per tick, over a plot area starting at `x0`. */
function xAxis(opts: { ticks: number[]; x0: number; width: number; top: number; bottom: number; label: (t: number) => string }): SafeHtml {
  const max = opts.ticks[opts.ticks.length - 1]!;
  return html`${opts.ticks.map((t) => {
    const x = opts.x0 + (t / max) * opts.width;
    return html`<line class="grid" x1="${f1(x)}" x2="${f1(x)}" y1="${opts.top}" y2="${opts.bottom}"/><text class="tick" x="${f1(x)}" y="${opts.bottom + 14}" text-anchor="middle">${opts.label(t)}</text>`;
  })}`;
}

/** One bar of the WER chart. */
export interface WerBar {
  group: string;
  provider: string;
  colour: string;
  wer: number;
  ci95: readonly [number, number];
  /** Tooltip text (utterances, speakers). */
  detail: string;
}

const LABEL_W = 170;
const PLOT_W = 480;
const BAR_H = 12;

/**
 * Horizontal bars of WER per group, one bar per provider inside each group, with the bootstrap 95%
 * interval as a whisker. The axis runs from 0 to a round value above `max` — the page's largest WER or
 * interval end, the same for every chart (DESIGN §8.5) — so a WER above 100% (many insertions) is drawn,
 * not clipped, and equal bars mean equal WER from one chart to the next. `marked` groups get a dagger.
 */
export function werBarChart(opts: { title: string; groups: readonly string[]; bars: readonly WerBar[]; max: number; marked?: ReadonlySet<string> }): SafeHtml {
  const providers = [...new Set(opts.bars.map((b) => b.provider))];
  const rowH = providers.length * (BAR_H + 2) + 10;
  const top = 8;
  const bottom = top + opts.groups.length * rowH;
  const axis = ticks(Math.max(opts.max, ...opts.bars.map((b) => Math.max(b.wer, b.ci95[1]))));
  const scale = (v: number) => LABEL_W + (v / axis[axis.length - 1]!) * PLOT_W;
  const byKey = new Map(opts.bars.map((b) => [`${b.group}\u0000${b.provider}`, b]));
  const rows = opts.groups.map((group, g) => {
    const y0 = top + g * rowH + 5;
    const bars = providers.map((provider, p) => {
      const bar = byKey.get(`${group}\u0000${provider}`);
      if (!bar) return '';
      const y = y0 + p * (BAR_H + 2);
      const mid = y + BAR_H / 2;
      const [lo, hi] = [scale(bar.ci95[0]), scale(bar.ci95[1])];
      return html`<g><title>${bar.provider} · ${group}: WER ${percent(bar.wer)} (95% CI ${percent(bar.ci95[0])}–${percent(bar.ci95[1])}), ${bar.detail}</title>
<rect x="${LABEL_W}" y="${y}" width="${f1(Math.max(0.5, scale(bar.wer) - LABEL_W))}" height="${BAR_H}" fill="${bar.colour}"/>
<line class="whisker" x1="${f1(lo)}" x2="${f1(hi)}" y1="${mid}" y2="${mid}"/><line class="whisker" x1="${f1(lo)}" x2="${f1(lo)}" y1="${y + 2}" y2="${y + BAR_H - 2}"/><line class="whisker" x1="${f1(hi)}" x2="${f1(hi)}" y1="${y + 2}" y2="${y + BAR_H - 2}"/>
<text class="value" x="${f1(Math.max(hi, scale(bar.wer)) + 4)}" y="${mid + 4}">${percent(bar.wer)}</text></g>`;
    });
    const label = opts.marked?.has(group) ? `${group} †` : group;
    return html`<text class="label" x="${LABEL_W - 8}" y="${y0 + (rowH - 10) / 2 + 4}" text-anchor="end">${label}</text>${bars}`;
  });
  const height = bottom + 22;
  return html`<svg class="chart" viewBox="0 0 ${LABEL_W + PLOT_W + 60} ${height}" width="100%" role="img" aria-label="${opts.title}"><title>${opts.title}</title>
${xAxis({ ticks: axis, x0: LABEL_W, width: PLOT_W, top, bottom, label: (t) => `${Math.round(t * 100)}%` })}${rows}</svg>`;
}

/** Heat-map colour of a WER: green at 0, amber near 25%, red from 60% up (also distinct in greyscale print). */
export function heatColour(wer: number): { fill: string; ink: string } {
  const stops: [number, [number, number, number]][] = [
    [0, [232, 245, 233]],
    [0.25, [255, 213, 79]],
    [0.6, [198, 40, 40]],
  ];
  const x = Math.min(Math.max(wer, 0), 0.6);
  let i = 0;
  while (i < stops.length - 2 && x > stops[i + 1]![0]) i++;
  const [a, ca] = stops[i]!;
  const [b, cb] = stops[i + 1]!;
  const t = (x - a) / (b - a);
  const rgb = ca.map((c, k) => Math.round(c + (cb[k]! - c) * t));
  const luminance = (0.299 * rgb[0]! + 0.587 * rgb[1]! + 0.114 * rgb[2]!) / 255;
  return { fill: `rgb(${rgb.join(',')})`, ink: luminance < 0.55 ? '#ffffff' : '#1d2433' };
}

/** One cell of the heat map (absent when a provider has no summary row under a condition). */
export interface HeatCell {
  provider: string;
  condition: string;
  wer: number;
  ci95: readonly [number, number];
}

/** Providers × conditions, each cell coloured by WER (group `all`) with the value written in it. */
export function heatMap(opts: {
  title: string;
  providers: readonly string[];
  conditions: readonly string[];
  cells: readonly HeatCell[];
  /** A provider's row label (default: the token). */
  label?: (provider: string) => string;
}): SafeHtml {
  const label = opts.label ?? ((p: string) => p);
  const labelW = 170;
  const cellW = 110;
  const cellH = 40;
  const headH = 26;
  const width = labelW + opts.conditions.length * cellW + 4;
  const height = headH + opts.providers.length * cellH + 4;
  const head = opts.conditions.map((c, j) => html`<text class="label" x="${labelW + j * cellW + cellW / 2}" y="${headH - 9}" text-anchor="middle">${c}</text>`);
  const byKey = new Map(opts.cells.map((c) => [`${c.provider}\u0000${c.condition}`, c]));
  const rows = opts.providers.map((provider, i) => {
    const y = headH + i * cellH;
    const cells = opts.conditions.map((condition, j) => {
      const x = labelW + j * cellW;
      const cell = byKey.get(`${provider}\u0000${condition}`);
      if (!cell) return html`<rect x="${x + 1}" y="${y + 1}" width="${cellW - 2}" height="${cellH - 2}" class="empty"/><text class="cell" x="${x + cellW / 2}" y="${y + cellH / 2 + 5}" text-anchor="middle">n/a</text>`;
      const { fill, ink } = heatColour(cell.wer);
      return html`<g><title>${provider} · ${condition}: WER ${percent(cell.wer)} (95% CI ${percent(cell.ci95[0])}–${percent(cell.ci95[1])})</title>
<rect x="${x + 1}" y="${y + 1}" width="${cellW - 2}" height="${cellH - 2}" rx="3" fill="${fill}"/>
<text class="cell" x="${x + cellW / 2}" y="${y + cellH / 2 + 5}" text-anchor="middle" fill="${ink}">${percent(cell.wer)}</text></g>`;
    });
    return html`<text class="label" x="${labelW - 8}" y="${y + cellH / 2 + 4}" text-anchor="end">${label(provider)}</text>${cells}`;
  });
  return html`<svg class="chart heat" viewBox="0 0 ${width} ${height}" width="${Math.min(100, Math.round((width / 710) * 100))}%" role="img" aria-label="${opts.title}"><title>${opts.title}</title>${head}${rows}</svg>`;
}

/** The latencies of one provider, with the percentiles computed from all of them. */
export interface LatencyRow {
  provider: string;
  colour: string;
  /** The points drawn (possibly a deterministic sample of all latencies). */
  points: readonly number[];
  count: number;
  p50: number;
  p95: number;
}

/**
 * A strip plot per provider: each utterance's latency as a translucent dot (spread vertically by a fixed
 * pattern so overlapping values stay visible), with the p50 and p95 marked and written beside the strip.
 */
export function latencyStrips(opts: { title: string; rows: readonly LatencyRow[] }): SafeHtml {
  const rowH = 34;
  const top = 8;
  const bottom = top + opts.rows.length * rowH;
  const max = Math.max(1, ...opts.rows.flatMap((r) => [...r.points, r.p95]));
  const axis = ticks(max);
  const scale = (v: number) => LABEL_W + (v / axis[axis.length - 1]!) * PLOT_W;
  const rows = opts.rows.map((row, i) => {
    const y0 = top + i * rowH;
    const mid = y0 + rowH / 2;
    const dots = row.points.map((v, k) => html`<circle cx="${f1(scale(v))}" cy="${f1(mid - 8 + ((k * 7) % 17))}" r="2.4" fill="${row.colour}" fill-opacity="0.45"/>`);
    const [x50, x95] = [scale(row.p50), scale(row.p95)];
    return html`<g><title>${row.provider}: p50 ${Math.round(row.p50)} ms, p95 ${Math.round(row.p95)} ms over ${row.count} transcriptions</title>
<text class="label" x="${LABEL_W - 8}" y="${mid + 4}" text-anchor="end">${row.provider}</text>${dots}
<line class="p50" x1="${f1(x50)}" x2="${f1(x50)}" y1="${mid - 12}" y2="${mid + 12}"/><line class="p95" x1="${f1(x95)}" x2="${f1(x95)}" y1="${mid - 12}" y2="${mid + 12}"/>
<text class="value" x="${LABEL_W + PLOT_W + 8}" y="${mid + 4}">p50 ${Math.round(row.p50)} · p95 ${Math.round(row.p95)}</text></g>`;
  });
  return html`<svg class="chart" viewBox="0 0 ${LABEL_W + PLOT_W + 150} ${bottom + 22}" width="100%" role="img" aria-label="${opts.title}"><title>${opts.title}</title>
${xAxis({ ticks: axis, x0: LABEL_W, width: PLOT_W, top, bottom, label: (t) => `${t} ms` })}${rows}</svg>`;
}
