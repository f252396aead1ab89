/**
 * Evaluations (DESIGN §8): request and response bodies of `/v1/evaluations*`, shared by the server's
 * routes, the client and the CLI. Counts, lengths and names are checked in the service, which answers
 * the design's exact messages; the schemas here only fix the shapes.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Page, PagingQuery, Timestamp } from './common.js';
import { JobStatus } from './tts.js';
import { EVALUATION_LIMITS, STREAM_PACE_MAX, STREAM_PACE_MIN } from '../constants.js';
import { COMPARE_VERDICTS, COMPARISON_VERDICTS } from '../comparison-verdict.js';

export { COMPARE_VERDICTS, COMPARISON_VERDICTS } from '../comparison-verdict.js';

/** Job statuses plus `cancelled`, which only evaluations have (DESIGN §8.2). */
export const EvaluationStatus = Type.Union([...JobStatus.anyOf, Type.Literal('cancelled')]);
export type EvaluationStatus = Static<typeof EvaluationStatus>;

/** The statuses after which an evaluation never changes again. */
export const FINAL_EVALUATION_STATUSES: readonly EvaluationStatus[] = ['completed', 'failed', 'partial', 'cancelled'];

/** How providers hear the audio: one request per utterance, or streamed in real time (DESIGN §13.2). */
export const EVALUATION_MODES = ['batch', 'streaming'] as const;
export const EvaluationMode = Type.Union(EVALUATION_MODES.map((m) => Type.Literal(m)));
export type EvaluationMode = (typeof EVALUATION_MODES)[number];

/** What utterances are grouped by: a speaker attribute, or the engine that voices it. */
export const EVALUATION_GROUP_BY = ['gender', 'region', 'accent', 'age_range', 'native_language', 'engine'] as const;
export const EvaluationGroupBy = Type.Union(EVALUATION_GROUP_BY.map((g) => Type.Literal(g)));
export type EvaluationGroupBy = (typeof EVALUATION_GROUP_BY)[number];

export const EvaluationNormalizerName = Type.Union([Type.Literal('basic'), Type.Literal('whisper-en')]);

/** The catalogue filter of a speaker selection (exact match, case-insensitive, as `/v1/speakers`). */
export const EvaluationSpeakerFilter = Type.Object(
  {
    gender: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
    accent: Type.Optional(Type.String()),
    age_range: Type.Optional(Type.String()),
    native_language: Type.Optional(Type.String()),
    engine: Type.Optional(Type.String()),
  },
  // A misspelt key (`regoin`) would otherwise widen the selection to the whole catalogue unnoticed.
  { additionalProperties: false },
);
export type EvaluationSpeakerFilter = Static<typeof EvaluationSpeakerFilter>;

/**
 * Either `{ids, group_by?}` or `{filter, group_by, per_group, seed?}`; one object with optional fields so
 * a wrong combination gets the service's plain message rather than a union's validation noise.
 */
export const EvaluationSpeakers = Type.Object({
  ids: Type.Optional(Type.Array(Type.String())),
  filter: Type.Optional(EvaluationSpeakerFilter),
  group_by: Type.Optional(EvaluationGroupBy),
  per_group: Type.Optional(Type.Integer({ minimum: 1, maximum: EVALUATION_LIMITS.perGroup })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
});
export type EvaluationSpeakers = Static<typeof EvaluationSpeakers>;

/** `sample` of a corpus evaluation: `size` utterances chosen from `seed` (default 0). */
export const EvaluationSample = Type.Object(
  {
    size: Type.Integer({ minimum: 1, maximum: EVALUATION_LIMITS.utterances }),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);
export type EvaluationSample = Static<typeof EvaluationSample>;

/**
 * `probes` of an evaluation (DESIGN §12), any subset: non-speech clips sent to every provider, entity
 * sentences joining the texts, keyterms boosting a second pass. Bounds are checked in the service (its
 * exact messages); the shapes here.
 */
export const EvaluationProbes = Type.Object(
  {
    non_speech: Type.Optional(
      Type.Object(
        {
          clips: Type.Optional(Type.Integer({ description: '1..200, default 20' })),
          seconds: Type.Optional(Type.Number({ description: '1..30, default 5' })),
          kinds: Type.Optional(Type.Array(Type.String(), { description: 'silence, noise, hum, tone, dtmf (default all)' })),
        },
        { additionalProperties: false },
      ),
    ),
    entities: Type.Optional(
      Type.Object(
        {
          types: Type.Array(Type.String(), { description: 'digits, phone, number, money, date, time, email, code' }),
          per_type: Type.Optional(Type.Integer({ description: '1..200, default 10' })),
        },
        { additionalProperties: false },
      ),
    ),
    keyterms: Type.Optional(Type.Object({ terms: Type.Array(Type.String()) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type EvaluationProbes = Static<typeof EvaluationProbes>;

/**
 * `conversation` of POST /v1/evaluations (DESIGN §16.1): synthetic calls of the texts. Ranges are checked by
 * `checkConversation` (src/shared/conversations/options.ts) so each field out of range is a 400 naming it.
 */
export const EvaluationConversation = Type.Object(
  {
    calls: Type.Optional(Type.Integer({ description: '1..200 (required: its absence is named by the range rule)' })),
    turns: Type.Optional(Type.Integer({ description: '2..60, default 12' })),
    speakers_per_call: Type.Optional(Type.Integer({ description: '2..4, default 2' })),
    gap_ms: Type.Optional(Type.Array(Type.Integer(), { description: '[min, max] within 0..5000, default [200, 800]' })),
    overlap: Type.Optional(Type.Number({ description: 'share of turns starting 100..600 ms before the previous one ends: 0..0.5, default 0' })),
  },
  { additionalProperties: false },
);
export type EvaluationConversation = Static<typeof EvaluationConversation>;

/** POST /v1/evaluations: exactly one source — `texts`, `dataset_id` or `corpus_id` (DESIGN §8.1, §10.5). */
export const CreateEvaluationRequest = Type.Object({
  name: Type.Optional(Type.String()),
  texts: Type.Optional(Type.Array(Type.String())),
  dataset_id: Type.Optional(Type.String()),
  /** A recorded corpus (`cor_…`): its utterances are the audio; no synthesis, no characters. */
  corpus_id: Type.Optional(Type.String()),
  /** Synthesised sources only; refused with a corpus. */
  speakers: Type.Optional(EvaluationSpeakers),
  /** Corpus only: `speaker` or one of the corpus's metadata fields (default `gender` when it has it, else `speaker`). */
  group_by: Type.Optional(Type.String({ minLength: 1 })),
  /** Corpus only: a seeded subset of its utterances. */
  sample: Type.Optional(EvaluationSample),
  providers: Type.Array(Type.String()),
  conditions: Type.Optional(Type.Array(Type.String())),
  normalizer: Type.Optional(EvaluationNormalizerName),
  /** An earlier evaluation of the caller's this one is compared with (DESIGN §11; `eval run --baseline`). */
  baseline_id: Type.Optional(Type.String()),
  /** `batch` (default) or `streaming`: every provider must stream (DESIGN §13.2). */
  mode: Type.Optional(EvaluationMode),
  /** What no WER shows (DESIGN §12): hallucination on non-speech, entity accuracy, keyterm lift. */
  probes: Type.Optional(EvaluationProbes),
  /** Texts or dataset only: synthetic calls of several speakers (DESIGN §16.1); refused with a corpus. */
  conversation: Type.Optional(EvaluationConversation),
  /** Streaming only: 1.0 = real time. */
  pace: Type.Optional(Type.Number({ minimum: STREAM_PACE_MIN, maximum: STREAM_PACE_MAX, description: 'Streaming only: 1.0 = real time (default)' })),
});
export type CreateEvaluationRequest = Static<typeof CreateEvaluationRequest>;

/** POST /v1/evaluations/{id}/rerun (DESIGN §11.2, §15.8): the body is optional; `name` names the rerun (1..200 characters, default the baseline's name). */
export const RerunEvaluationRequest = Type.Object({
  name: Type.Optional(Type.String({ description: "1..200 characters; default: the baseline's name" })),
});
export type RerunEvaluationRequest = Static<typeof RerunEvaluationRequest>;

/** POST /v1/evaluations → 201. */
export const EvaluationCreated = Type.Object({
  evaluation_id: Type.String(),
  status: EvaluationStatus,
  total_utterances: Type.Integer(),
  created_at: Timestamp,
});
export type EvaluationCreated = Static<typeof EvaluationCreated>;

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Interval = Type.Tuple([Type.Number(), Type.Number()]);
/** `{"unsupported": true}`: a metric the provider cannot be measured on (DESIGN §16.4: no diarization). */
const UnsupportedMetric = Type.Object({ unsupported: Type.Literal(true) });

/** One row of `summary`: a provider × condition × group value (or `all`). */
export const EvaluationSummaryRow = Type.Object({
  provider: Type.String(),
  condition: Type.String(),
  group: Type.String(),
  /** Utterances with a transcript (scored); failed requests are counted apart. */
  utterances: Type.Integer(),
  speakers: Type.Integer(),
  reference_words: Type.Integer(),
  substitutions: Type.Integer(),
  deletions: Type.Integer(),
  insertions: Type.Integer(),
  /** Corpus WER, Σ errors / Σ reference words; null when no utterance was scored. */
  wer: Nullable(Type.Number()),
  wer_ci95: Nullable(Interval),
  cer: Nullable(Type.Number()),
  latency_ms: Type.Object({ p50: Nullable(Type.Number()), p95: Nullable(Type.Number()) }),
  /** Utterances sent to the provider (scored + failed requests; never syntheses that failed). DESIGN §15.2. */
  attempted: Type.Integer(),
  /** Requests the provider failed (errors, refusals, failed streams); WER is over the rest only. */
  failed_requests: Type.Integer(),
  /** Seconds of audio the provider transcribed (the scored utterances; DESIGN §11.6). */
  audio_seconds: Nullable(Type.Number()),
  /** audio minutes × the binding's `price_per_minute_usd`, 6 decimals; null when the binding has no price. */
  cost_usd: Nullable(Type.Number()),
  /** Real-time factor: audio seconds ÷ the provider's processing seconds (higher is faster). */
  rtfx: Nullable(Type.Number()),
  /**
   * Streaming evaluations only (DESIGN §13.2): from the first frame sent to the first result. A failed
   * stream counts as +∞ (§15.3): a percentile that touches one is null (printed `timeout`).
   */
  first_partial_ms: Type.Optional(Nullable(Type.Object({ p50: Nullable(Type.Number()), p95: Nullable(Type.Number()) }))),
  /** Streaming only: from the end of speech to the final result that completes the transcript; failed streams as +∞. */
  final_latency_ms: Type.Optional(Nullable(Type.Object({ p50: Nullable(Type.Number()), p95: Nullable(Type.Number()), p99: Nullable(Type.Number()) }))),
  /** Streaming only: streams that failed (refused, stalled, timed out); each is also a failed request (§15.3). */
  streams_failed: Type.Optional(Type.Integer()),
  /** Streaming only: partial results that changed an earlier word, per streamed utterance. */
  revisions_per_utterance: Type.Optional(Type.Number()),
  /** Streaming only: words received before the audio holding them was sent. */
  early_words: Type.Optional(Type.Integer()),
  /** Utterances whose transcript loops (DESIGN §12.2). */
  loops: Type.Optional(Type.Integer()),
  /** WER with each utterance's errors capped at its reference length. */
  wer_capped: Type.Optional(Nullable(Type.Number())),
  /** Entity probe: per type, entities recovered (DESIGN §12.3). */
  entities: Type.Optional(
    Type.Record(Type.String(), Type.Object({ total: Type.Integer(), found: Type.Integer(), accuracy: Nullable(Type.Number()), ci95: Nullable(Interval) })),
  ),
  /** Non-speech probe, on the provider's row for condition clean, group all (DESIGN §12.1). */
  non_speech: Type.Optional(
    Type.Object({
      clips: Type.Integer(),
      clips_with_words: Type.Integer(),
      hallucination_rate: Nullable(Type.Number()),
      ci95: Nullable(Interval),
      words_per_minute: Nullable(Type.Number()),
      by_kind: Type.Record(Type.String(), Type.Number()),
    }),
  ),
  /**
   * Conversations (DESIGN §16.4): DER as md-eval scores all the row's calls at once, cpWER Σ errors ÷ Σ
   * reference words, intervals over calls; `{"unsupported": true}` for a provider without diarization.
   */
  der: Type.Optional(Type.Union([Nullable(Type.Number()), UnsupportedMetric])),
  der_ci95: Type.Optional(Type.Union([Nullable(Interval), UnsupportedMetric])),
  cpwer: Type.Optional(Type.Union([Nullable(Type.Number()), UnsupportedMetric])),
  cpwer_ci95: Type.Optional(Type.Union([Nullable(Interval), UnsupportedMetric])),
  /** Conversations: the share of calls where `speakers_found` = `speakers`. */
  speaker_count_accuracy: Type.Optional(Type.Union([Nullable(Type.Number()), UnsupportedMetric])),
  /** Conversations: turns all of whose words were deleted, summed over the calls. */
  dropped_turns: Type.Optional(Type.Integer()),
  /** Keyterm probe, on the provider's row for condition clean, group all (DESIGN §12.4). */
  keyterms: Type.Optional(
    Type.Union([
      Type.Object({ unsupported: Type.Literal(true) }),
      Type.Object({
        occurrences: Type.Integer(),
        recall_without: Nullable(Type.Number()),
        recall_with: Nullable(Type.Number()),
        false_positives_without: Type.Integer(),
        false_positives_with: Type.Integer(),
        wer_other_without: Nullable(Type.Number()),
        wer_other_with: Nullable(Type.Number()),
      }),
    ]),
  ),
});
export type EvaluationSummaryRow = Static<typeof EvaluationSummaryRow>;

/** How a paired comparison of two providers reads (DESIGN §8.3, §15.1). */
export const ComparisonVerdict = Type.Union(COMPARISON_VERDICTS.map((v) => Type.Literal(v)));
export type ComparisonVerdict = (typeof COMPARISON_VERDICTS)[number];

/** One paired comparison of two providers under a condition, over group `all` or one group value. */
export const EvaluationComparison = Type.Object({
  condition: Type.String(),
  group: Type.String(),
  a: Type.String(),
  b: Type.String(),
  wer_a: Nullable(Type.Number()),
  wer_b: Nullable(Type.Number()),
  difference: Nullable(Type.Number()),
  ci95: Nullable(Interval),
  /** Share of speaker draws where a's WER is below b's. */
  p_a_better: Nullable(Type.Number()),
  /** Share of draws where the two WERs are equal (1 for an exact tie). */
  p_equal: Nullable(Type.Number()),
  /** The bootstrap blocks (speakers) of the utterances both providers transcribed (DESIGN §15.1). */
  speakers: Type.Integer(),
  /** `inconclusive` under 5 speakers or with nothing in common, whatever the interval says. */
  verdict: ComparisonVerdict,
});
export type EvaluationComparison = Static<typeof EvaluationComparison>;

/** What a provider token was bound to when the evaluation was created (null: not recorded, or none). */
export const EvaluationProviderSetup = Type.Object({
  adapter: Nullable(Type.String()),
  model: Nullable(Type.String()),
  language: Nullable(Type.String()),
});
export type EvaluationProviderSetup = Static<typeof EvaluationProviderSetup>;

/** What produced an evaluation's numbers (DESIGN §11.1); `voxctl_version` is null for evaluations made before it was recorded. */
export const EvaluationSetup = Type.Object({
  voxctl_version: Nullable(Type.String()),
  normalizer: Type.Object({ name: Type.String(), version: Type.Integer() }),
  providers: Type.Record(Type.String(), EvaluationProviderSetup),
  conditions: Type.Array(Type.String()),
  seed: Type.Integer(),
});
export type EvaluationSetup = Static<typeof EvaluationSetup>;

/** The fields of an evaluation shown in lists and in detail. */
const evaluationFields = {
  evaluation_id: Type.String(),
  name: Nullable(Type.String()),
  status: EvaluationStatus,
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  total_utterances: Type.Integer(),
  completed_utterances: Type.Integer(),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  providers: Type.Array(Type.String()),
  /** Each provider with the adapter and model the server binds it to: `{"stt-b": "stt-b · deepgram nova-3"}`. */
  provider_labels: Type.Record(Type.String(), Type.String()),
  /** Canonical condition texts (`clean`, `telephone`, `noise:5`, `speed:1.5`). */
  conditions: Type.Array(Type.String()),
  /** A speaker attribute (synthesised sources), or `speaker` / a metadata field of the corpus. */
  group_by: Type.String(),
  normalizer: Type.Object({ name: EvaluationNormalizerName, version: Type.Integer() }),
  /** The recorded corpus evaluated (DESIGN §10.5); absent for synthesised speech. */
  corpus_id: Type.Optional(Type.String()),
  /** That corpus's name when the evaluation was created (the report's setup names it). */
  corpus_name: Type.Optional(Type.String()),
  /** `speakers.seed` (default 0): speaker choice, noise and bootstrap draws all derive from it (extension). */
  seed: Type.Integer(),
  /** Signed URL of the HTML report (24 h, no auth header). */
  report_url: Type.String(),
  setup: EvaluationSetup,
  /** The evaluation this one reruns or is compared with (DESIGN §11.2); null when none. */
  baseline_id: Nullable(Type.String()),
  /** `batch` or `streaming` (DESIGN §13.2); always sent by this server, absent from older ones. */
  mode: Type.Optional(EvaluationMode),
  /** The pace the audio was streamed at (1.0 = real time); streaming evaluations only. */
  pace: Type.Optional(Type.Number()),
  /** The probes asked for (DESIGN §12), with their defaults filled in; absent when none. */
  probes: Type.Optional(EvaluationProbes),
  /** A conversation evaluation (DESIGN §16.1): its options, defaults applied. */
  conversation: Type.Optional(EvaluationConversation),
};

/** An item of `GET /v1/evaluations`. */
export const EvaluationListItem = Type.Object(evaluationFields);
export type EvaluationListItem = Static<typeof EvaluationListItem>;

/** GET /v1/evaluations/{id}; `summary` and `comparisons` once `completed` or `partial`. */
export const EvaluationDetail = Type.Object({
  ...evaluationFields,
  /**
   * How late the service's event loop ran while the evaluation's work ran (DESIGN §15.4), in ms: the most
   * its own work can have added to a latency it reports. Null before the work has ended, and for
   * evaluations run before it was measured; always sent by this server.
   */
  event_loop_lag_ms: Type.Optional(Nullable(Type.Object({ p50: Type.Number(), p99: Type.Number() }))),
  summary: Type.Optional(Type.Array(EvaluationSummaryRow)),
  comparisons: Type.Optional(Type.Array(EvaluationComparison)),
});
export type EvaluationDetail = Static<typeof EvaluationDetail>;

export const EvaluationPage = Page(EvaluationListItem);
export type EvaluationPage = Static<typeof EvaluationPage>;

export const EvaluationListQuery = Type.Composite([Type.Object({ status: Type.Optional(EvaluationStatus) }), PagingQuery]);
export type EvaluationListQuery = Static<typeof EvaluationListQuery>;

/** Why an utterance has no transcript: a provider error code (DESIGN §4.11) or `synthesis_failed`. */
export const EvaluationUtteranceError = Type.Object({ code: Type.String(), message: Type.String() });
export type EvaluationUtteranceError = Static<typeof EvaluationUtteranceError>;

/** One text × speaker × condition × provider result (a corpus utterance × condition × provider). */
export const EvaluationUtterance = Type.Object({
  text_index: Type.Integer(),
  /** The corpus utterance id (corpus evaluations only). */
  utterance_id: Type.Optional(Type.String()),
  /** The catalogue speaker, or the corpus speaker (null when the corpus names none). */
  speaker_id: Nullable(Type.String()),
  group: Type.String(),
  condition: Type.String(),
  provider: Type.String(),
  reference: Type.String(),
  transcript: Nullable(Type.String()),
  wer: Nullable(Type.Number()),
  substitutions: Nullable(Type.Integer()),
  deletions: Nullable(Type.Integer()),
  insertions: Nullable(Type.Integer()),
  latency_ms: Nullable(Type.Integer()),
  confidence: Nullable(Type.Number()),
  error: Nullable(EvaluationUtteranceError),
  /** Errors here while another provider transcribed the same audio exactly (DESIGN §8.4). */
  determinable: Type.Boolean(),
  /** Signed URL of the conditioned audio the providers heard; null when synthesis failed. */
  audio_url: Nullable(Type.String()),
  /** A non-speech clip's kind (DESIGN §12.1); absent for speech. */
  kind: Type.Optional(Type.String()),
  /** The transcript repeats a phrase 4+ times where the reference does not (DESIGN §12.2). */
  loop: Type.Optional(Type.Boolean()),
  /** An entity sentence: its entity and whether the transcript recovered it (DESIGN §12.3). */
  entity: Type.Optional(Type.Object({ type: Type.String(), value: Type.String(), found: Nullable(Type.Boolean()) })),
  /** Keyterm probe: the transcript of the second pass, with boosting (null when it failed). */
  boosted_transcript: Type.Optional(Nullable(Type.String())),
  /** Streaming evaluations only (DESIGN §13.2), null when the stream gave no such figure. */
  first_partial_ms: Type.Optional(Nullable(Type.Integer())),
  final_latency_ms: Type.Optional(Nullable(Type.Integer())),
  revisions: Type.Optional(Nullable(Type.Integer())),
  early_words: Type.Optional(Nullable(Type.Integer())),
  /** Conversations (DESIGN §16.4): this call's cpWER and DER, `{"unsupported": true}` without diarization. */
  cpwer: Type.Optional(Type.Union([Nullable(Type.Number()), UnsupportedMetric])),
  der: Type.Optional(Type.Union([Nullable(Type.Number()), UnsupportedMetric])),
  /** Conversations: the reference's speakers and the distinct speakers the provider labelled (null without diarization). */
  speakers: Type.Optional(Type.Integer()),
  speakers_found: Type.Optional(Nullable(Type.Integer())),
  /** Conversations: turns all of whose words were deleted in the whole-call alignment. */
  dropped_turns: Type.Optional(Type.Integer()),
});
export type EvaluationUtterance = Static<typeof EvaluationUtterance>;

export const EvaluationUtterancePage = Page(EvaluationUtterance);
export type EvaluationUtterancePage = Static<typeof EvaluationUtterancePage>;

/** Filters of `GET /v1/evaluations/{id}/utterances` (DESIGN §8.4). */
export const EvaluationUtteranceQuery = Type.Composite([
  Type.Object({
    provider: Type.Optional(Type.String()),
    condition: Type.Optional(Type.String()),
    group: Type.Optional(Type.String()),
    errors_only: Type.Optional(Type.Boolean()),
    determinable_only: Type.Optional(Type.Boolean()),
  }),
  PagingQuery,
]);
export type EvaluationUtteranceQuery = Static<typeof EvaluationUtteranceQuery>;

/** GET /v1/evaluations/{id}/compare query. */
export const EvaluationCompareQuery = Type.Object({ baseline: Type.String({ minLength: 1 }) });
export type EvaluationCompareQuery = Static<typeof EvaluationCompareQuery>;

/** How a row of a comparison over time reads (DESIGN §11.3, §15.1). */
export const CompareVerdict = Type.Union(COMPARE_VERDICTS.map((v) => Type.Literal(v)));
export type CompareVerdict = (typeof COMPARE_VERDICTS)[number];

/** One provider × condition × group of a comparison of two evaluations, over their matched utterances. */
export const EvaluationCompareRow = Type.Object({
  provider: Type.String(),
  condition: Type.String(),
  group: Type.String(),
  /** Matched utterances (scored in both evaluations). */
  utterances: Type.Integer(),
  wer_baseline: Type.Number(),
  wer: Type.Number(),
  /** wer − wer_baseline. */
  difference: Type.Number(),
  ci95: Interval,
  /** Share of paired speaker draws in which the new evaluation's WER is higher. */
  p_worse: Type.Number(),
  /** The bootstrap blocks of the matched utterances; under 5 the verdict is `inconclusive` (DESIGN §15.1). */
  speakers: Type.Integer(),
  verdict: CompareVerdict,
  /** The new evaluation's utterances of this row sent to the provider, and those that failed (§15.2). */
  attempted: Type.Integer(),
  failed_requests: Type.Integer(),
});
export type EvaluationCompareRow = Static<typeof EvaluationCompareRow>;

/** GET /v1/evaluations/{id}/compare?baseline={other} → 200. */
export const EvaluationCompare = Type.Object({
  evaluation_id: Type.String(),
  baseline_id: Type.String(),
  matched_utterances: Type.Integer(),
  changed_setup: Type.Array(Type.String()),
  rows: Type.Array(EvaluationCompareRow),
});
export type EvaluationCompare = Static<typeof EvaluationCompare>;

/** Input of E2's report renderer: the evaluation and every utterance, at a time. */
export interface EvaluationReportInput {
  evaluation: EvaluationDetail;
  utterances: EvaluationUtterance[];
  generatedAt: Date;
  /** The comparison with the evaluation's baseline, when it has a finished one. */
  baseline?: EvaluationCompare;
  /** Each provider's list price per minute (USD) recorded at creation; absent or null: unpriced. */
  prices?: Record<string, number | null>;
  /** The adapter each provider token is bound to (caveats such as PocketSphinx on telephone audio). */
  adapters?: Record<string, string | null>;
  /** Conversations (DESIGN §16.6): the first calls, in order, drawn as timelines. */
  calls?: ReportCall[];
}

/** A speaker's stretch of a call, in seconds from its start. */
export interface ReportSegment {
  speaker: string;
  start: number;
  end: number;
}

/** One call of the report's conversation timelines: its reference turns and what each provider heard. */
export interface ReportCall {
  /** `call-{n}`, or a recorded call's id. */
  utterance_id: string;
  /** The reference turns (null until the call is built). */
  turns: (ReportSegment & { text: string })[] | null;
  /**
   * Each provider × condition that heard the call: its speaker segments, `diarized: false` for a provider
   * without diarization (no segments). A hearing that failed or has not run is absent.
   */
  hypotheses: { provider: string; condition: string; diarized: boolean; segments: ReportSegment[] }[];
}
