import type {
  EvaluationComparison,
  EvaluationDetail,
  EvaluationListItem,
  EvaluationSetup,
  EvaluationSummaryRow,
  EvaluationConversation,
  EvaluationUtterance,
} from '../../../shared/schemas/evaluations.js';
import type { NormalizerName } from '../../../shared/normalizers/index.js';
import type { EvaluationRow, UtteranceView } from './repository.js';
import type { EvaluationProbes } from '../../../shared/schemas/evaluations.js';
import { utteranceEntityFound, utteranceLoops } from './probe-summary.js';
import { comparisonVerdict } from '../../../shared/comparison-verdict.js';
import { ALL_GROUPS } from './summary.js';
import { storedConversation } from './conversations/create.js';
import { callScoreOf } from './conversations/score-call.js';
import type { CallScore } from '../../../shared/conversations/index.js';
import { round4 } from '../../../shared/accuracy.js';

/** Signs URLs of this server for the views (report and conditioned audio). */
export interface UrlSigners {
  report(evaluationId: string): string;
  audio(audioId: string): string;
}

/** What a view shows besides the row: signed URLs, and each provider token's label (its adapter and model). */
export interface ViewContext extends UrlSigners {
  providerLabel(id: string): string;
}

/** The audio id of one conditioned utterance audio: fixed by its place, so a retry rewrites the same file. */
export const conditionedAudioId = (evaluationId: string, t: number, s: number, c: number): string =>
  `aud_${evaluationId.replace(/^ev_/, 'ev')}_${t}_${s}_${c}`;

/** floor(100 × done / total). */
export const evaluationProgress = (row: Pick<EvaluationRow, 'total_utterances' | 'completed_utterances'>): number =>
  row.total_utterances === 0 ? 100 : Math.floor((100 * row.completed_utterances) / row.total_utterances);

/** Provider ids and condition texts of a row, in request order; whether its audio was streamed; its normaliser and whether it boosts keyterms. */
export function evaluationLists(row: Pick<EvaluationRow, 'providers' | 'conditions'> & Partial<Pick<EvaluationRow, 'mode' | 'normalizer' | 'probes'>>): {
  providers: string[];
  conditions: string[];
  streaming: boolean;
  normalizer?: NormalizerName;
  keyterms?: boolean;
} {
  return {
    providers: JSON.parse(row.providers) as string[],
    conditions: JSON.parse(row.conditions) as string[],
    streaming: row.mode === 'streaming',
    ...(row.normalizer ? { normalizer: row.normalizer as NormalizerName } : {}),
    ...(row.probes && (JSON.parse(row.probes) as EvaluationProbes).keyterms ? { keyterms: true } : {}),
  };
}

/** Each provider's recorded price per minute (USD), null when unpriced. */
export function evaluationPrices(row: Pick<EvaluationRow, 'prices'>): Record<string, number | null> {
  return row.prices ? (JSON.parse(row.prices) as Record<string, number | null>) : {};
}

/**
 * The recorded setup (DESIGN §11.1); a row stored without one (written before it was recorded and not
 * migrated, e.g. by a benchmark) gets what its own columns say.
 */
export function evaluationSetup(row: EvaluationRow): EvaluationSetup {
  if (row.setup) return JSON.parse(row.setup) as EvaluationSetup;
  const { providers, conditions } = evaluationLists(row);
  return {
    voxctl_version: null,
    normalizer: { name: row.normalizer, version: row.normalizer_version },
    providers: Object.fromEntries(providers.map((p) => [p, { adapter: null, model: null, language: null }])),
    conditions,
    seed: Number(row.seed),
  };
}

/**
 * A summary row as the API shows it: rows stored before cost and speed were recorded read them as null;
 * before `attempted` was recorded it is what it always was, the scored utterances and the failed ones.
 */
const withLaterFields = (r: EvaluationSummaryRow): EvaluationSummaryRow => ({
  ...r,
  attempted: r.attempted ?? r.utterances + r.failed_requests,
  audio_seconds: r.audio_seconds ?? null,
  cost_usd: r.cost_usd ?? null,
  rtfx: r.rtfx ?? null,
});

/** The stored summary of a finished evaluation as the API shows it (empty before it finished). */
export function toEvaluationSummary(row: EvaluationRow): EvaluationSummaryRow[] {
  return row.summary === null ? [] : (JSON.parse(row.summary) as EvaluationSummaryRow[]).map(withLaterFields);
}

/**
 * A comparison as the API shows it. Comparisons finished before groups and `p_equal` compared group `all`
 * only; before verdicts were recorded, their blocks are the fewer speakers of the two providers' rows (an
 * upper bound of the shared ones), so an old comparison of 3 speakers reads `inconclusive` too.
 */
function withVerdict(c: Partial<EvaluationComparison>, summary: readonly EvaluationSummaryRow[]): EvaluationComparison {
  const group = c.group ?? ALL_GROUPS;
  const speakersOf = (provider: string | undefined) => summary.find((r) => r.provider === provider && r.condition === c.condition && r.group === group)?.speakers ?? 0;
  const speakers = c.speakers ?? Math.min(speakersOf(c.a), speakersOf(c.b));
  const ci95 = c.ci95 ?? null;
  return { ...c, group, p_equal: c.p_equal ?? null, speakers, verdict: c.verdict ?? comparisonVerdict(ci95, speakers) } as EvaluationComparison;
}

/** The list view of an evaluation. */
export function toEvaluationListItem(row: EvaluationRow, urls: Pick<ViewContext, 'report' | 'providerLabel'>): EvaluationListItem {
  const { providers, conditions } = evaluationLists(row);
  return {
    evaluation_id: row.id,
    name: row.name,
    status: row.status,
    progress: evaluationProgress(row),
    total_utterances: row.total_utterances,
    completed_utterances: row.completed_utterances,
    created_at: row.created_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
    providers,
    provider_labels: Object.fromEntries(providers.map((p) => [p, urls.providerLabel(p)])),
    conditions,
    group_by: row.group_by,
    normalizer: { name: row.normalizer as NormalizerName, version: row.normalizer_version },
    ...(row.corpus_id === null ? {} : { corpus_id: row.corpus_id, corpus_name: row.corpus_name ?? row.corpus_id }),
    seed: row.seed,
    report_url: urls.report(row.id),
    setup: evaluationSetup(row),
    baseline_id: row.baseline_id ?? null,
    mode: row.mode ?? 'batch',
    ...(row.mode === 'streaming' && row.pace !== null ? { pace: Number(row.pace) } : {}),
    ...(row.probes ? { probes: JSON.parse(row.probes) as EvaluationProbes } : {}),
    ...conversationView(row),
  };
}

/** A conversation evaluation's options as the body gave them (snake case, defaults applied). */
function conversationView(row: EvaluationRow): { conversation?: EvaluationConversation } {
  const c = storedConversation(row);
  if (!c) return {};
  const o = c.options;
  return { conversation: { calls: o.calls, turns: o.turns, speakers_per_call: o.speakersPerCall, gap_ms: [...o.gapMs], overlap: o.overlap } };
}

/** A call's metrics on its utterance row (DESIGN §16.4); nothing for a row that is not a scored call. */
function callFields(u: UtteranceView): Partial<EvaluationUtterance> {
  const score = callScoreOf(u);
  if (!score) return {};
  const rate = (m: CallScore['cpwer'] | CallScore['der']) => ('unsupported' in m ? m : m.value === null ? null : round4(m.value));
  return { cpwer: rate(score.cpwer), der: rate(score.der), speakers: score.speakers, speakers_found: score.speakersFound, dropped_turns: score.droppedTurns };
}

/** The event loop's delay recorded when the work ended (DESIGN §15.4); null until then, and for older evaluations. */
function eventLoopLag(row: EvaluationRow): EvaluationDetail['event_loop_lag_ms'] {
  const p50 = row.event_loop_lag_p50_ms;
  const p99 = row.event_loop_lag_p99_ms;
  return p50 === null || p50 === undefined || p99 === null || p99 === undefined ? null : { p50: Number(p50), p99: Number(p99) };
}

/** The single view: the list fields, `event_loop_lag_ms`, plus `summary` and `comparisons` once `completed` or `partial`. */
export function toEvaluationDetail(row: EvaluationRow, urls: Pick<ViewContext, 'report' | 'providerLabel'>): EvaluationDetail {
  const view: EvaluationDetail = { ...toEvaluationListItem(row, urls), event_loop_lag_ms: eventLoopLag(row) };
  if ((row.status === 'completed' || row.status === 'partial') && row.summary !== null) {
    const summary = toEvaluationSummary(row);
    view.summary = summary;
    const stored = JSON.parse(row.comparisons ?? '[]') as Partial<EvaluationComparison>[];
    view.comparisons = stored.map((c) => withVerdict(c, summary));
  }
  return view;
}

/** The API shape of a stored utterance. */
export function toEvaluationUtterance(
  u: UtteranceView,
  lists: { providers: string[]; conditions: string[]; streaming?: boolean; normalizer?: NormalizerName; keyterms?: boolean },
  urls: Pick<UrlSigners, 'audio'>,
): EvaluationUtterance {
  return {
    text_index: u.text_index,
    ...(u.utterance_id === null ? {} : { utterance_id: u.utterance_id }),
    // A corpus utterance names its corpus speaker (null without one); the stored id is its bootstrap block.
    // A non-speech clip is no speaker's (DESIGN §12.1).
    speaker_id: u.kind ? null : u.utterance_id === null ? u.speaker_id : u.corpus_speaker,
    group: u.kind ? 'non-speech' : u.grp,
    condition: lists.conditions[u.condition_index] ?? String(u.condition_index),
    provider: lists.providers[u.provider_index] ?? String(u.provider_index),
    reference: u.reference,
    transcript: u.transcript,
    wer: u.wer,
    substitutions: u.substitutions,
    deletions: u.deletions,
    insertions: u.insertions,
    latency_ms: u.latency_ms,
    confidence: u.confidence,
    error: u.error_code === null ? null : { code: u.error_code, message: u.error_message ?? '' },
    determinable: u.determinable === 1,
    audio_url: u.audio_id === null ? null : urls.audio(u.audio_id),
    ...(u.kind ? { kind: u.kind } : {}),
    loop: utteranceLoops(u, lists.normalizer ?? 'basic'),
    ...(u.entity_type && u.entity_value ? { entity: { type: u.entity_type, value: u.entity_value, found: utteranceEntityFound(u) } } : {}),
    ...(lists.keyterms && !u.kind ? { boosted_transcript: u.boosted_transcript ?? null } : {}),
    ...callFields(u),
    ...(lists.streaming
      ? {
          first_partial_ms: u.first_partial_ms ?? null,
          final_latency_ms: u.final_latency_ms ?? null,
          revisions: u.revisions ?? null,
          early_words: u.early_words ?? null,
        }
      : {}),
  };
}
