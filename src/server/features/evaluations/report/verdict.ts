/**
 * The report's verdict panel (DESIGN §15.7): what to conclude, at the top of the page. Per condition the
 * provider with the lowest WER on group `all`, the runner-up, their paired difference with its 95%
 * interval and whether it is significant or `inconclusive`, each one's cost per audio hour; then every
 * caveat that applies, one sentence each. The choice of best and runner-up and the caveats are pure
 * functions of the view, tested without HTML.
 */
import { comparisonVerdict, MIN_VERDICT_SPEAKERS } from '../../../../shared/comparison-verdict.js';
import type { EvaluationComparison, EvaluationDetail, EvaluationSummaryRow } from '../../../../shared/schemas/evaluations.js';
import { html, type SafeHtml } from '../../../html.js';
import { perHour } from './over-time.js';
import { percent } from './svg.js';

/** Event-loop lag above this at p99 is told as a caveat of every latency (DESIGN §15.4). */
export const LAG_CAVEAT_MS = 50;

/** One provider's standing under a condition: its group-`all` row and its cost per audio hour. */
export interface Standing {
  provider: string;
  row: EvaluationSummaryRow;
  wer: number;
  /** USD per audio hour; null when unpriced. */
  usdPerHour: number | null;
}

/**
 * How the best provider compares with the runner-up on the audio both transcribed: `best_better` when
 * the interval of best − runner-up lies below 0, `runner_better` above (possible when the best skipped
 * audio by failing requests), `no_difference` when it holds 0, `tie` when equal in every draw,
 * `inconclusive` under 5 speakers (DESIGN §15.1), `none` when there is no comparison row.
 */
export type VerdictOutcome = 'best_better' | 'runner_better' | 'no_difference' | 'tie' | 'inconclusive' | 'none';

/** The verdict of one condition. */
export interface ConditionVerdict {
  condition: string;
  best: Standing;
  runnerUp: Standing | null;
  /** WER of best − WER of runner-up on their paired utterances, and its 95% interval (oriented so). */
  difference: number | null;
  ci95: [number, number] | null;
  /** Bootstrap blocks of the comparison; null without one. */
  speakers: number | null;
  outcome: VerdictOutcome;
}

/**
 * A provider's cost per audio hour: its recorded list price per minute × 60, else what its row cost per
 * second of audio transcribed; null when unpriced.
 */
export function costPerHour(row: Pick<EvaluationSummaryRow, 'provider' | 'cost_usd' | 'audio_seconds'>, prices: Readonly<Record<string, number | null>> = {}): number | null {
  const price = prices[row.provider];
  if (price !== null && price !== undefined) return price * 60;
  if (row.cost_usd !== null && row.audio_seconds !== null && row.audio_seconds > 0) return (row.cost_usd / row.audio_seconds) * 3600;
  return null;
}

/**
 * The verdict of each condition of the evaluation, in its order: providers ranked by WER on group `all`
 * (ties by the upper end of the interval, then by token), the first two compared with the comparison row
 * of the pair (group `all`). A condition where no provider has a WER has no verdict.
 */
export function conditionVerdicts(
  ev: Pick<EvaluationDetail, 'conditions' | 'summary' | 'comparisons'>,
  prices: Readonly<Record<string, number | null>> = {},
): ConditionVerdict[] {
  return ev.conditions.flatMap((condition): ConditionVerdict[] => {
    const ranked = (ev.summary ?? [])
      .filter((r) => r.condition === condition && r.group === 'all' && r.wer !== null)
      .map((row): Standing => ({ provider: row.provider, row, wer: row.wer!, usdPerHour: costPerHour(row, prices) }))
      .sort((a, b) => a.wer - b.wer || (a.row.wer_ci95?.[1] ?? a.wer) - (b.row.wer_ci95?.[1] ?? b.wer) || a.provider.localeCompare(b.provider));
    const [best, runnerUp] = ranked;
    if (!best) return [];
    if (!runnerUp) return [{ condition, best, runnerUp: null, difference: null, ci95: null, speakers: null, outcome: 'none' } satisfies ConditionVerdict];
    const c = (ev.comparisons ?? []).find(
      (x) => x.condition === condition && x.group === 'all' && ((x.a === best.provider && x.b === runnerUp.provider) || (x.a === runnerUp.provider && x.b === best.provider)),
    );
    return [{ condition, best, runnerUp, ...oriented(c, best.provider, runnerUp.row.speakers, best.row.speakers) } satisfies ConditionVerdict];
  });
}

/** The comparison row turned to read best − runner-up. */
function oriented(c: EvaluationComparison | undefined, best: string, ...rowSpeakers: number[]): Pick<ConditionVerdict, 'difference' | 'ci95' | 'speakers' | 'outcome'> {
  if (!c) return { difference: null, ci95: null, speakers: null, outcome: 'none' };
  // Rows stored before §15 have no speakers or verdict: the summary rows' speakers stand in (an upper bound).
  const stored = c as Partial<Pick<EvaluationComparison, 'speakers' | 'verdict'>>;
  const speakers = stored.speakers ?? Math.min(...rowSpeakers);
  const verdict = stored.verdict ?? comparisonVerdict(c.ci95, speakers);
  const flip = c.a !== best;
  const difference = c.difference === null ? null : flip ? -c.difference : c.difference;
  const ci95: [number, number] | null = c.ci95 ? (flip ? [-c.ci95[1], -c.ci95[0]] : [c.ci95[0], c.ci95[1]]) : null;
  let outcome: VerdictOutcome;
  if (verdict === 'inconclusive') outcome = 'inconclusive';
  else if (c.p_equal === 1) outcome = 'tie';
  else if (verdict === 'no_difference') outcome = 'no_difference';
  else outcome = (verdict === 'a_better') !== flip ? 'best_better' : 'runner_better';
  return { difference, ci95, speakers, outcome };
}

/** What the panel needs besides the view's summary and comparisons. */
export interface VerdictContext {
  label(provider: string): string;
  /** The adapter a token is bound to (for the telephone caveat), if known. */
  adapter(provider: string): string | null;
  prices: Readonly<Record<string, number | null>>;
}

/** The words of the source (DESIGN §15.7): recordings for a corpus, synthetic voices otherwise. */
export interface SourceWords {
  corpus: boolean;
  /** `recordings` or `synthetic voices`. */
  plural: string;
  /** `recording` or `synthetic voice`. */
  singular: string;
}

/** The words that fit an evaluation's source. */
export function sourceWords(ev: Pick<EvaluationDetail, 'corpus_id'>): SourceWords {
  const corpus = ev.corpus_id !== undefined;
  return { corpus, plural: corpus ? 'recordings' : 'synthetic voices', singular: corpus ? 'recording' : 'synthetic voice' };
}

/** A caveat of the panel: a stable kind (the page's `data-caveat`) and its one sentence. */
export interface Caveat {
  kind: 'few-speakers' | 'failed-requests' | 'failed-streams' | 'event-loop-lag' | 'narrowband';
  text: string;
}

const list = (items: readonly string[]) => (items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

/** Every caveat that applies to the evaluation's conclusions, one sentence each (DESIGN §15.7). */
export function verdictCaveats(ev: EvaluationDetail, verdicts: readonly ConditionVerdict[], ctx: VerdictContext): Caveat[] {
  const words = sourceWords(ev);
  const out: Caveat[] = [];
  const rows = (ev.summary ?? []).filter((r) => r.group === 'all');

  // Fewer than 5 bootstrap blocks: what the comparisons had, or with one provider what its rows had.
  const blocks = verdicts.flatMap((v) => (v.speakers !== null ? [v.speakers] : v.runnerUp ? [] : [v.best.row.speakers]));
  const fewest = blocks.length ? Math.min(...blocks) : null;
  if (fewest !== null && fewest < MIN_VERDICT_SPEAKERS) {
    const who = words.corpus ? `the ${words.plural} come from only ${fewest} speaker${fewest === 1 ? '' : 's'}` : `only ${fewest} ${fewest === 1 ? words.singular : words.plural} spoke`;
    out.push({
      kind: 'few-speakers',
      text: `Too few speakers: ${who} (fewer than ${MIN_VERDICT_SPEAKERS}), so an interval is little more than their range and no difference between providers can be called significant — it is inconclusive.`,
    });
  }

  const failing = ev.providers.flatMap((p) => {
    const mine = rows.filter((r) => r.provider === p && r.failed_requests > 0);
    if (!mine.length) return [];
    return [`${ctx.label(p)} failed ${list(mine.map((r) => `${r.failed_requests} of ${attempted(r)} under ${r.condition}`))}`];
  });
  if (failing.length) {
    out.push({ kind: 'failed-requests', text: `Failed requests: ${failing.join('; ')} — a WER covers only the requests answered, so a provider that fails often can look better than it is.` });
  }

  const stalled = ev.providers.flatMap((p) => {
    const mine = rows.filter((r) => r.provider === p && (r.streams_failed ?? 0) > 0);
    if (!mine.length) return [];
    return [`${list(mine.map((r) => `${r.streams_failed} of ${attempted(r)} streams under ${r.condition}`))} to ${ctx.label(p)}`];
  });
  if (stalled.length) {
    out.push({ kind: 'failed-streams', text: `Failed streams: ${stalled.join('; ')} never finished (refused, stalled or timed out); each counts as a timeout in the latency percentiles it reaches.` });
  }

  // Views of evaluations run before the lag was measured have none.
  const lag = ev.event_loop_lag_ms;
  if (lag && lag.p99 > LAG_CAVEAT_MS) {
    out.push({
      kind: 'event-loop-lag',
      text: `Latencies include up to ${Math.round(lag.p99)} ms of the service's own delay: its event loop lagged ${Math.round(lag.p99)} ms at p99 during the run (p50 ${Math.round(lag.p50)} ms).`,
    });
  }

  const narrowband = ev.conditions.includes('telephone') ? ev.providers.filter((p) => ctx.adapter(p) === 'local-sphinx') : [];
  if (narrowband.length) {
    out.push({
      kind: 'narrowband',
      text: `${list(narrowband.map(ctx.label))} hears telephone audio through a 16 kHz wideband model (the 8 kHz audio is resampled, the bands the line removed stay empty), so its WER under telephone tells about that model, not about the ${words.plural}.`,
    });
  }
  return out;
}

/** Utterances sent to the provider: the row's `attempted`, or — rows stored before it — scored plus failed. */
function attempted(r: EvaluationSummaryRow): number {
  return (r as Partial<Pick<EvaluationSummaryRow, 'attempted'>>).attempted ?? r.utterances + r.failed_requests;
}

const points = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x * 100).toFixed(1)}`;
const cost = (usd: number | null) => (usd === null ? 'unpriced' : perHour(usd));

/** The verdict cell's words. */
function outcomeWords(v: ConditionVerdict, label: (p: string) => string): { text: string; cls: string } {
  switch (v.outcome) {
    case 'best_better':
      return { text: 'significant: the interval excludes 0', cls: 'significant' };
    case 'runner_better':
      return { text: `significant the other way on the audio both transcribed: ${label(v.runnerUp!.provider)} is better there`, cls: 'inconclusive' };
    case 'tie':
      return { text: 'tie: equal WER in every draw', cls: 'same' };
    case 'no_difference':
      return { text: 'not significant: the interval includes 0', cls: 'same' };
    case 'inconclusive':
      return { text: `inconclusive: only ${v.speakers ?? 0} speakers`, cls: 'inconclusive' };
    default:
      return { text: v.runnerUp ? 'no comparison of the two' : 'one provider: nothing to compare', cls: 'same' };
  }
}

/** The headline: which provider has the lowest WER where, and how far that can be trusted. */
function headline(verdicts: readonly ConditionVerdict[], label: (p: string) => string): SafeHtml {
  const byProvider = new Map<string, string[]>();
  for (const v of verdicts) byProvider.set(v.best.provider, [...(byProvider.get(v.best.provider) ?? []), v.condition]);
  const all = verdicts.length;
  const parts = [...byProvider].map(([p, cs]) => html`<strong data-provider="${p}">${label(p)}</strong> ${cs.length === all && all > 1 ? 'under every condition' : `under ${list(cs)}`}`);
  const compared = verdicts.filter((v) => v.runnerUp);
  const significant = compared.filter((v) => v.outcome === 'best_better').length;
  const trust = !compared.length
    ? ''
    : significant === compared.length
      ? ' — each lead is significant.'
      : significant === 0
        ? ` — but no lead is established: ${compared.every((v) => v.outcome === 'inconclusive') ? 'every comparison is inconclusive' : 'no difference is significant'}.`
        : ` — significant under ${list(compared.filter((v) => v.outcome === 'best_better').map((v) => v.condition))} only.`;
  return html`<p class="headline" id="verdict-headline">Lowest WER: ${parts.map((p, i) => html`${i ? '; ' : ''}${p}`)}${trust}</p>`;
}

/** The panel, first on the page. */
export function verdictSection(ev: EvaluationDetail, ctx: VerdictContext & { colour(provider: string): string }): SafeHtml {
  const words = sourceWords(ev);
  const open = html`<section id="verdict" class="verdict" aria-labelledby="verdict-h"><h2 id="verdict-h">What to conclude</h2>`;
  if (!ev.summary) {
    return html`${open}<p class="muted" id="verdict-pending">No verdict yet: the evaluation is ${ev.status}, and a verdict needs its summary.</p></section>`;
  }
  const verdicts = conditionVerdicts(ev, ctx.prices);
  const caveats = verdictCaveats(ev, verdicts, ctx);
  const source = words.corpus
    ? `Measured on ${words.plural} of the corpus ${ev.corpus_name ?? ev.corpus_id}`
    : `Measured on ${words.plural} reading the texts`;
  const swatch = (p: string) => html`<svg class="swatch" width="10" height="10" aria-hidden="true" data-provider="${p}"><rect width="10" height="10" rx="2" fill="${ctx.colour(p)}"/></svg>`;
  // `stt-b · deepgram nova-3` breaks between the token and its binding, never inside either (`nova-` / `3`).
  const name = (p: string) => {
    const label = ctx.label(p);
    const cut = label.indexOf(' · ');
    return cut < 0 ? html`<span class="who">${label}</span>` : html`<span class="who">${label.slice(0, cut)}</span> <span class="binding">· ${label.slice(cut + 3)}</span>`;
  };
  const who = (s: Standing) => html`${swatch(s.provider)} ${name(s.provider)}<br><span class="fig">WER ${percent(s.wer)} · ${cost(s.usdPerHour)}</span>`;
  const rows = verdicts.map((v) => {
    const o = outcomeWords(v, ctx.label);
    const diff = v.difference === null ? '—' : `${points(v.difference)} points`;
    const ci = v.ci95 ? `95% CI ${points(v.ci95[0])} to ${points(v.ci95[1])}` : '';
    return html`<tr data-condition="${v.condition}"><th scope="row">${v.condition}</th><td class="best" data-provider="${v.best.provider}">${who(v.best)}</td>
<td class="runner"${v.runnerUp ? html` data-provider="${v.runnerUp.provider}"` : ''}>${v.runnerUp ? who(v.runnerUp) : '—'}</td>
<td class="num diff">${diff}${ci ? html`<br><span class="fig">${ci}</span>` : ''}</td><td class="outcome ${o.cls}">${o.text}</td></tr>`;
  });
  const body = verdicts.length
    ? html`${headline(verdicts, ctx.label)}
<table id="verdict-table"><thead><tr><th>Condition</th><th>Lowest WER (group all)</th><th>Runner-up</th><th>Best − runner-up</th><th>Verdict</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="muted">No provider transcribed anything: there is nothing to conclude.</p>`;
  const notes = caveats.length
    ? html`<h3>Caveats</h3><ul id="verdict-caveats">${caveats.map((c) => html`<li data-caveat="${c.kind}">${c.text}</li>`)}</ul>`
    : html`<p class="muted" id="verdict-caveats">No caveat: every request was answered and every comparison had at least ${MIN_VERDICT_SPEAKERS} speakers.</p>`;
  return html`${open}<p class="lead" id="verdict-source">${source}. A difference is significant when its 95% interval (1,000 paired resamples of speakers) excludes 0; costs are list prices per audio hour.</p>
${body}${notes}</section>`;
}
