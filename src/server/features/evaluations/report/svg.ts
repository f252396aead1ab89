/**
 * Inline SVG charts of the evaluation report. Plain markup with presentation attributes and classes,
 * no script and no `style` attribute, so the page keeps a strict CSP (styles allowed by hash only) and
 * prints like it draws. Every label goes through the escaping `html` template.
 */
import { html, type SafeHtml } from '../../../html.js';

/** Colour-blind-safe palette (Okabe–Ito, then Tol's muted): distinguishable colours for up to 10 providers. */
export const PROVIDER_COLOURS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#332288', '#999933', '#882255', '#44aa99'];

/** FNV-1a (32 bits) of a token's UTF-16 units: a stable, well-spread hash with no dependency. */
function tokenHash(token: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** A provider's own colour: its token hashed into the palette, so it is the same in every report. */
export const providerColour = (token: string): string => PROVIDER_COLOURS[tokenHash(token) % PROVIDER_COLOURS.length]!;

/**
 * The colour of each provider of one report (DESIGN §15.7): its own colour (providerColour), whatever its
 * position. Two tokens of one report that hash to the same colour cannot both have it — they would be
 * indistinguishable — so, taking the tokens in alphabetical order (never the evaluation's order), a token
 * whose colour is taken gets the next free one. Up to 10 providers all get distinct colours.
 */
export function providerColours(tokens: readonly string[]): Map<string, string> {
  const taken = new Set<number>();
  const out = new Map<string, string>();
  for (const token of [...new Set(tokens)].sort()) {
    let slot = tokenHash(token) % PROVIDER_COLOURS.length;
    for (let k = 0; k < PROVIDER_COLOURS.length && taken.has(slot); k++) slot = (slot + 1) % PROVIDER_COLOURS.length;
    taken.add(slot);
    out.set(token, PROVIDER_COLOURS[slot]!);
  }
  return out;
}

/**
 * A generous estimate of the width of `text` in px at `fontSize` px, bold or not. No font metrics exist
 * on the server, so each character is given the width of its class in a wide sans (DejaVu Sans, the
 * widest fallback of the page's system-ui stack); narrower fonts only leave more room.
 */
export function textWidth(text: string, fontSize: number, bold = false): number {
  let em = 0;
  for (const ch of text) {
    if (/[ijl.,:;'|!·\s]/.test(ch)) em += 0.36;
    else if (/[frt()[\]\-/]/.test(ch)) em += 0.46;
    else if (/[mwMW%@—…−]/.test(ch)) em += 1.0;
    else if (/[A-Z]/.test(ch)) em += 0.78;
    else em += 0.66;
  }
  return Math.ceil(em * fontSize * (bold ? 1.1 : 1));
}

/** `text` as it fits in `maxWidth` px: whole, or cut with an ellipsis (the full text goes in a tooltip). */
export function fitText(text: string, maxWidth: number, fontSize: number): { shown: string; full?: string } {
  if (textWidth(text, fontSize) <= maxWidth) return { shown: text };
  const chars = [...text];
  let n = chars.length;
  while (n > 1 && textWidth(`${chars.slice(0, n).join('').trimEnd()}…`, fontSize) > maxWidth) n--;
  return { shown: `${chars.slice(0, n).join('').trimEnd()}…`, full: text };
}

/** A `<text>` holding `text` fitted to `maxWidth` px; a cut text carries its full text as a `<title>`. */
export function fittedText(attrs: SafeHtml, text: string, maxWidth: number, fontSize: number): SafeHtml {
  const f = fitText(text, maxWidth, fontSize);
  return html`<text ${attrs}>${f.full ? html`<title>${f.full}</title>` : ''}${f.shown}</text>`;
}

/** Font sizes (px) of the chart classes in report-style.ts: the label margins are sized with them. */
export const FONT = { label: 12, tick: 10, value: 10, cell: 13 } as const;
/** No label margin grows beyond this: a longer label is cut with an ellipsis. */
export const MAX_LABEL_W = 260;

/**
 * The left margin that holds the widest of `labels` (at the label font) and 14 px of gap: at least 170 px,
 * so charts of short labels keep the page's common scale (a chart is drawn at the page's width: a
 * narrower viewBox would enlarge its text), at most MAX_LABEL_W + 14.
 */
export function labelMargin(labels: readonly string[]): number {
  return Math.min(MAX_LABEL_W, Math.max(156, ...labels.map((l) => textWidth(l, FONT.label)))) + 14;
}

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
  const labels = opts.groups.map((group) => (opts.marked?.has(group) ? `${group} †` : group));
  const labelW = labelMargin(labels);
  // Room right of the plot for the widest value written after a bar or whisker.
  const valueW = Math.max(24, ...opts.bars.map((b) => textWidth(percent(b.wer), FONT.value))) + 10;
  const rowH = providers.length * (BAR_H + 2) + 10;
  const top = 8;
  const bottom = top + opts.groups.length * rowH;
  const axis = ticks(Math.max(opts.max, ...opts.bars.map((b) => Math.max(b.wer, b.ci95[1]))));
  const scale = (v: number) => labelW + (v / axis[axis.length - 1]!) * PLOT_W;
  const byKey = new Map(opts.bars.map((b) => [`${b.group}\u0000${b.provider}`, b]));
  const rows = opts.groups.map((group, g) => {
    const y0 = top + g * rowH + 5;
    const bars = providers.map((provider, p) => {
      const bar = byKey.get(`${group}\u0000${provider}`);
      if (!bar) return '';
      const y = y0 + p * (BAR_H + 2);
      const mid = y + BAR_H / 2;
      const [lo, hi] = [scale(bar.ci95[0]), scale(bar.ci95[1])];
      return html`<g data-provider="${bar.provider}"><title>${bar.provider} · ${group}: WER ${percent(bar.wer)} (95% CI ${percent(bar.ci95[0])}–${percent(bar.ci95[1])}), ${bar.detail}</title>
<rect x="${labelW}" y="${y}" width="${f1(Math.max(0.5, scale(bar.wer) - labelW))}" height="${BAR_H}" fill="${bar.colour}"/>
<line class="whisker" x1="${f1(lo)}" x2="${f1(hi)}" y1="${mid}" y2="${mid}"/><line class="whisker" x1="${f1(lo)}" x2="${f1(lo)}" y1="${y + 2}" y2="${y + BAR_H - 2}"/><line class="whisker" x1="${f1(hi)}" x2="${f1(hi)}" y1="${y + 2}" y2="${y + BAR_H - 2}"/>
<text class="value" x="${f1(Math.max(hi, scale(bar.wer)) + 4)}" y="${mid + 4}">${percent(bar.wer)}</text></g>`;
    });
    return html`${fittedText(html`class="label" x="${labelW - 8}" y="${y0 + (rowH - 10) / 2 + 4}" text-anchor="end"`, labels[g]!, labelW - 14, FONT.label)}${bars}`;
  });
  const height = bottom + 22;
  return html`<svg class="chart" viewBox="0 0 ${labelW + PLOT_W + valueW} ${height}" width="100%" role="img" aria-label="${opts.title}"><title>${opts.title}</title>
${xAxis({ ticks: axis, x0: labelW, width: PLOT_W, top, bottom, label: (t) => `${Math.round(t * 100)}%` })}${rows}</svg>`;
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
  const labelW = labelMargin(opts.providers.map(label));
  // A cell holds its condition's name above it: wide enough for the widest, within reason.
  const cellW = Math.min(180, Math.max(110, ...opts.conditions.map((c) => textWidth(c, FONT.label) + 12)));
  const cellH = 40;
  const headH = 26;
  const width = labelW + opts.conditions.length * cellW + 4;
  const height = headH + opts.providers.length * cellH + 4;
  const head = opts.conditions.map((c, j) => fittedText(html`class="label" x="${labelW + j * cellW + cellW / 2}" y="${headH - 9}" text-anchor="middle"`, c, cellW - 12, FONT.label));
  const byKey = new Map(opts.cells.map((c) => [`${c.provider}\u0000${c.condition}`, c]));
  const rows = opts.providers.map((provider, i) => {
    const y = headH + i * cellH;
    const cells = opts.conditions.map((condition, j) => {
      const x = labelW + j * cellW;
      const cell = byKey.get(`${provider}\u0000${condition}`);
      if (!cell) return html`<rect x="${x + 1}" y="${y + 1}" width="${cellW - 2}" height="${cellH - 2}" class="empty"/><text class="cell" x="${x + cellW / 2}" y="${y + cellH / 2 + 5}" text-anchor="middle">n/a</text>`;
      const { fill, ink } = heatColour(cell.wer);
      return html`<g data-provider="${provider}"><title>${provider} · ${condition}: WER ${percent(cell.wer)} (95% CI ${percent(cell.ci95[0])}–${percent(cell.ci95[1])})</title>
<rect x="${x + 1}" y="${y + 1}" width="${cellW - 2}" height="${cellH - 2}" rx="3" fill="${fill}"/>
<text class="cell" x="${x + cellW / 2}" y="${y + cellH / 2 + 5}" text-anchor="middle" fill="${ink}">${percent(cell.wer)}</text></g>`;
    });
    return html`<g data-provider="${provider}">${fittedText(html`class="label" x="${labelW - 8}" y="${y + cellH / 2 + 4}" text-anchor="end"`, label(provider), labelW - 14, FONT.label)}${cells}</g>`;
  });
  return html`<svg class="chart heat" viewBox="0 0 ${width} ${height}" width="${Math.min(100, Math.round((width / 710) * 100))}%" role="img" aria-label="${opts.title}"><title>${opts.title}</title>${head}${rows}</svg>`;
}

/** The latencies of one provider, with the percentiles computed from all of them. */
export interface LatencyRow {
  /** The provider's token (`data-provider`). */
  provider: string;
  /** How the row is labelled (`stt-b · deepgram nova-3`). */
  label: string;
  colour: string;
  /** The points drawn (possibly a deterministic sample of all latencies). */
  points: readonly number[];
  count: number;
  /** Null where the percentile reaches a failed stream (DESIGN §15.3): written `timeout`, no mark. */
  p50: number | null;
  p95: number | null;
  /** Streams that failed beside the `count` that finished. */
  failed?: number;
}

const msOrTimeout = (x: number | null) => (x === null ? 'timeout' : `${Math.round(x)}`);

/**
 * A strip plot per provider: each utterance's latency as a translucent dot (spread vertically by a fixed
 * pattern so overlapping values stay visible), with the p50 and p95 marked and written beside the strip.
 */
export function latencyStrips(opts: { title: string; rows: readonly LatencyRow[] }): SafeHtml {
  const rowH = 34;
  const top = 8;
  const bottom = top + opts.rows.length * rowH;
  const labelW = labelMargin(opts.rows.map((r) => r.label));
  const values = opts.rows.map((r) => `p50 ${msOrTimeout(r.p50)} · p95 ${msOrTimeout(r.p95)}`);
  // At least the room `p50 1234 · p95 timeout` takes, so strips of one page share their scale.
  const valueW = Math.max(...values.map((v) => textWidth(v, FONT.value)), textWidth('p50 1234 · p95 timeout', FONT.value)) + 16;
  const max = Math.max(1, ...opts.rows.flatMap((r) => [...r.points, r.p95 ?? 0]));
  const axis = ticks(max);
  const scale = (v: number) => labelW + (v / axis[axis.length - 1]!) * PLOT_W;
  const rows = opts.rows.map((row, i) => {
    const y0 = top + i * rowH;
    const mid = y0 + rowH / 2;
    const dots = row.points.map((v, k) => html`<circle cx="${f1(scale(v))}" cy="${f1(mid - 8 + ((k * 7) % 17))}" r="2.4" fill="${row.colour}" fill-opacity="0.45"/>`);
    const mark = (cls: string, v: number | null) => (v === null ? '' : html`<line class="${cls}" x1="${f1(scale(v))}" x2="${f1(scale(v))}" y1="${mid - 12}" y2="${mid + 12}"/>`);
    const failed = row.failed ? `, ${row.failed} more never finished (timeout)` : '';
    return html`<g data-provider="${row.provider}"><title>${row.label}: p50 ${msOrTimeout(row.p50)} ms, p95 ${msOrTimeout(row.p95)} ms over ${row.count} transcriptions${failed}</title>
${fittedText(html`class="label" x="${labelW - 8}" y="${mid + 4}" text-anchor="end"`, row.label, labelW - 14, FONT.label)}${dots}
${mark('p50', row.p50)}${mark('p95', row.p95)}
<text class="value" x="${labelW + PLOT_W + 8}" y="${mid + 4}">${values[i]!}</text></g>`;
  });
  return html`<svg class="chart" viewBox="0 0 ${labelW + PLOT_W + valueW} ${bottom + 22}" width="100%" role="img" aria-label="${opts.title}"><title>${opts.title}</title>
${xAxis({ ticks: axis, x0: labelW, width: PLOT_W, top, bottom, label: (t) => `${t} ms` })}${rows}</svg>`;
}
