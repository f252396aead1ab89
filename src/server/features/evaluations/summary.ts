/**
 * The summary and comparisons of a finished evaluation (DESIGN §8.3), computed once from the stored
 * utterance rows — so they are reproducible: the same rows and seed give the same numbers.
 */
import type { EvaluationComparison, EvaluationSummaryRow } from '../../../shared/schemas/evaluations.js';
import { corpusWer, latencyPercentiles, pairedSpeakerBootstrap, speakerBootstrapCi, type UtteranceScore } from '../../../shared/stats.js';
import { round4 } from '../../../shared/accuracy.js';
import { comparisonVerdict } from '../../../shared/comparison-verdict.js';
import type { UtteranceView } from './repository.js';
import { streamingSummary, type StreamingSummary } from '../../../shared/streaming/summary.js';
import type { NormalizerName } from '../../../shared/normalizers/index.js';
import { keytermColumns, nonSpeechColumns, rowProbeColumns } from './probe-summary.js';
import type { CheckedProbes } from './probes.js';
import { conversationSummary } from '../../../shared/conversations/index.js';
import { callScoreOf } from './conversations/score-call.js';

/** The error code of utterances whose audio could not be synthesised (not a provider's failure). */
export const SYNTHESIS_FAILED = 'synthesis_failed';
/** The group that holds every speaker. */
export const ALL_GROUPS = 'all';

/** A stored row that has a transcript and its scores. */
type Scored = UtteranceView & { substitutions: number; deletions: number; insertions: number; reference_words: number };

const isScored = (u: UtteranceView): u is Scored => u.transcript !== null && u.reference_words !== null;
const errorsOf = (u: Scored): number => u.substitutions + u.deletions + u.insertions;
const scoreOf = (u: Scored): UtteranceScore => ({ speaker: u.speaker_id, errors: errorsOf(u), referenceWords: u.reference_words });

/** What cost and speed figures are computed from (DESIGN §11.6). */
export interface CostInputs {
  /** Seconds of each conditioned audio by audio id; absent: audio seconds unknown. */
  audioSeconds?: ReadonlyMap<string, number>;
  /** The provider's price per minute in USD; null or absent: unpriced. */
  price?: number | null;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * `audio_seconds` of the scored utterances, `cost_usd` = audio minutes × price (6 decimals, from the
 * rounded seconds so the figure can be checked by hand), `rtfx` = audio seconds ÷ processing seconds.
 */
export function costAndSpeed(scored: readonly { audio_id: string | null; latency_ms: number | null }[], inputs: CostInputs): Pick<EvaluationSummaryRow, 'audio_seconds' | 'cost_usd' | 'rtfx'> {
  if (!inputs.audioSeconds || scored.length === 0) return { audio_seconds: null, cost_usd: null, rtfx: null };
  let audio = 0;
  let processingMs = 0;
  for (const u of scored) {
    audio += (u.audio_id === null ? undefined : inputs.audioSeconds.get(u.audio_id)) ?? 0;
    processingMs += u.latency_ms ?? 0;
  }
  const seconds = round(audio, 3);
  return {
    audio_seconds: seconds,
    cost_usd: inputs.price === null || inputs.price === undefined ? null : round((seconds / 60) * inputs.price, 6),
    rtfx: processingMs > 0 ? round(seconds / (processingMs / 1000), 4) : null,
  };
}

/** A provider's request that failed: no transcript, and not because the audio could not be made. */
const isFailedRequest = (u: UtteranceView): boolean => u.transcript === null && u.error_code !== SYNTHESIS_FAILED;

/**
 * The §13.2 columns of a row of a streaming evaluation; a stream that failed counts as +∞ in its
 * percentiles and in `streams_failed` (§15.3). Syntheses that failed were never streamed.
 */
function streamingColumns(rows: readonly UtteranceView[]): StreamingSummary {
  return streamingSummary(
    rows
      .filter((u) => u.error_code !== SYNTHESIS_FAILED)
      .map((u) => ({
        first_partial_ms: u.first_partial_ms ?? null,
        final_latency_ms: u.final_latency_ms ?? null,
        revisions: u.revisions ?? 0,
        early_words: u.early_words ?? 0,
        failed: isFailedRequest(u),
      })),
  );
}

/** One summary row over the utterances of a provider × condition × group. */
function summaryRow(
  key: { provider: string; condition: string; group: string },
  rows: readonly UtteranceView[],
  seed: number,
  cost: CostInputs,
  streaming = false,
): EvaluationSummaryRow {
  const scored = rows.filter(isScored);
  const failedRequests = rows.filter(isFailedRequest).length;
  let substitutions = 0;
  let deletions = 0;
  let insertions = 0;
  let words = 0;
  let chars = 0;
  let charErrors = 0;
  for (const u of scored) {
    substitutions += u.substitutions;
    deletions += u.deletions;
    insertions += u.insertions;
    words += u.reference_words;
    chars += u.reference_chars ?? 0;
    charErrors += u.char_errors ?? 0;
  }
  const any = scored.length > 0;
  const latency = any ? latencyPercentiles(scored.map((u) => u.latency_ms ?? 0)) : { p50: null, p95: null };
  return {
    ...key,
    utterances: scored.length,
    speakers: new Set(scored.map((u) => u.speaker_id)).size,
    reference_words: words,
    substitutions,
    deletions,
    insertions,
    wer: any ? round4((substitutions + deletions + insertions) / words) : null,
    wer_ci95: any ? speakerBootstrapCi(scored.map(scoreOf), { seed }) : null,
    cer: any && chars > 0 ? round4(charErrors / chars) : null,
    latency_ms: latency,
    attempted: rows.filter((u) => u.error_code !== SYNTHESIS_FAILED).length,
    failed_requests: failedRequests,
    ...costAndSpeed(scored, cost),
    ...(streaming ? streamingColumns(rows) : {}),
  };
}

/**
 * The conversation columns of a row (DESIGN §16.4) over its heard calls: each call a bootstrap block;
 * a call whose hearing failed has no score and counts in `failed_requests` only.
 */
function callColumns(rows: readonly UtteranceView[], seed: number): Partial<EvaluationSummaryRow> {
  const calls = rows.flatMap((u) => {
    const score = u.transcript === null ? undefined : callScoreOf(u);
    return score ? [{ call: u.speaker_id, score }] : [];
  });
  // Nothing heard: nothing measured — null, never a rate of zero (DESIGN §15).
  if (calls.length === 0) return { der: null, der_ci95: null, cpwer: null, cpwer_ci95: null, speaker_count_accuracy: null, dropped_turns: 0 };
  const c = conversationSummary(calls, { seed });
  return { der: c.der, der_ci95: c.der_ci95, cpwer: c.cpwer, cpwer_ci95: c.cpwer_ci95, speaker_count_accuracy: c.speaker_count_accuracy, dropped_turns: c.dropped_turns };
}

/** Rows of `rows` keyed by provider index then condition index. */
function byProviderCondition(rows: readonly UtteranceView[]): Map<string, UtteranceView[]> {
  const out = new Map<string, UtteranceView[]>();
  for (const u of rows) {
    const k = `${u.provider_index}:${u.condition_index}`;
    let list = out.get(k);
    if (!list) out.set(k, (list = []));
    list.push(u);
  }
  return out;
}

/**
 * `summary`: per provider × condition, the group `all` then each group value (sorted);
 * `comparisons`: per condition, for the group `all` then each group value, each pair of providers in
 * request order, paired on the utterances both transcribed, with the same speaker draws for both (seeded
 * by the evaluation's seed).
 */
export function summarise(input: {
  rows: readonly UtteranceView[];
  providers: readonly string[];
  conditions: readonly string[];
  groups: readonly string[];
  seed: number;
  /** Seconds of each conditioned audio by id (cost and speed figures; null figures without it). */
  audioSeconds?: ReadonlyMap<string, number>;
  /** Each provider's price per minute in USD recorded at creation. */
  prices?: Readonly<Record<string, number | null>>;
  /** A streaming evaluation: rows add the latency columns of DESIGN §13.2. */
  streaming?: boolean;
  /** The evaluation's normaliser (loops and the probes read normalised words); default `basic`. */
  normalizer?: NormalizerName;
  /** The evaluation's probes (DESIGN §12). */
  probes?: CheckedProbes;
  /** A conversation evaluation (DESIGN §16.4): rows add DER, cpWER, speaker-count accuracy and dropped turns. */
  conversation?: boolean;
}): { summary: EvaluationSummaryRow[]; comparisons: EvaluationComparison[] } {
  // Non-speech clips are no speaker's and have nothing to score: they count in their own probe only.
  const cells = byProviderCondition(input.rows.filter((u) => !u.kind));
  const clips = input.rows.filter((u) => u.kind);
  const groups = [...new Set(input.groups)].sort();
  const normalizer = input.normalizer ?? 'basic';
  const probeOpts = { normalizer, seed: input.seed, probes: input.probes };
  const summary: EvaluationSummaryRow[] = [];
  input.providers.forEach((provider, p) => {
    input.conditions.forEach((condition, c) => {
      const rows = cells.get(`${p}:${c}`) ?? [];
      const cost: CostInputs = { audioSeconds: input.audioSeconds, price: input.prices?.[provider] ?? null };
      const all: EvaluationSummaryRow = {
        ...summaryRow({ provider, condition, group: ALL_GROUPS }, rows, input.seed, cost, input.streaming),
        ...rowProbeColumns(rows, probeOpts),
        ...(input.conversation ? callColumns(rows, input.seed) : {}),
      };
      if (condition === 'clean' && input.probes?.non_speech) {
        const own = clips.filter((u) => u.provider_index === p);
        all.non_speech = nonSpeechColumns(own, { normalizer, seed: input.seed, seconds: input.probes.non_speech.seconds });
        // A clip is a request to the provider like any other: one that failed was not heard, and the
        // hallucination rate must not pass over it unseen (DESIGN §15.2).
        all.attempted = (all.attempted ?? 0) + own.filter((u) => u.error_code !== SYNTHESIS_FAILED).length;
        all.failed_requests = (all.failed_requests ?? 0) + own.filter(isFailedRequest).length;
      }
      if (condition === 'clean' && input.probes?.keyterms) all.keyterms = keytermColumns(rows, { normalizer, terms: input.probes.keyterms.terms });
      summary.push(all);
      for (const group of groups) {
        const inGroup = rows.filter((u) => u.grp === group);
        summary.push({ ...summaryRow({ provider, condition, group }, inGroup, input.seed, cost, input.streaming), ...rowProbeColumns(inGroup, probeOpts) });
      }
    });
  });
  const comparisons: EvaluationComparison[] = [];
  input.conditions.forEach((condition, c) => {
    for (const group of [ALL_GROUPS, ...groups]) {
      const of = (p: number) => (cells.get(`${p}:${c}`) ?? []).filter((u) => group === ALL_GROUPS || u.grp === group);
      for (let a = 0; a < input.providers.length; a++) {
        for (let b = a + 1; b < input.providers.length; b++) {
          comparisons.push(compare({ condition, group, a: input.providers[a]!, b: input.providers[b]! }, of(a), of(b), input.seed));
        }
      }
    }
  });
  return { summary, comparisons };
}

/**
 * One paired comparison; null figures when the two providers share no transcribed utterance. Its verdict
 * is `inconclusive` under 5 speakers (DESIGN §15.1).
 */
function compare(key: { condition: string; group: string; a: string; b: string }, rowsA: readonly UtteranceView[], rowsB: readonly UtteranceView[], seed: number): EvaluationComparison {
  const bySlot = new Map<string, Scored>();
  for (const u of rowsB) if (isScored(u)) bySlot.set(`${u.text_index}:${u.speaker_index}`, u);
  const a: UtteranceScore[] = [];
  const b: UtteranceScore[] = [];
  for (const u of rowsA) {
    const other = isScored(u) ? bySlot.get(`${u.text_index}:${u.speaker_index}`) : undefined;
    if (!other || !isScored(u)) continue;
    a.push(scoreOf(u));
    b.push(scoreOf(other));
  }
  if (a.length === 0) return { ...key, wer_a: null, wer_b: null, difference: null, ci95: null, p_a_better: null, p_equal: null, speakers: 0, verdict: 'inconclusive' };
  const paired = pairedSpeakerBootstrap(a, b, { seed });
  const speakers = new Set(a.map((u) => u.speaker)).size;
  return {
    ...key,
    wer_a: round4(corpusWer(a)),
    wer_b: round4(corpusWer(b)),
    difference: paired.difference,
    ci95: paired.ci95,
    p_a_better: paired.pABetter,
    p_equal: paired.pEqual,
    speakers,
    verdict: comparisonVerdict(paired.ci95, speakers),
  };
}
