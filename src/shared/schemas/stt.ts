import { Type, type Static } from '@sinclair/typebox';

/** The spec's nine vendor tokens. */
export const SPEC_PROVIDERS = ['stt-a-model-1', 'stt-a-model-2', 'stt-b', 'stt-c', 'stt-d', 'stt-e', 'stt-f', 'stt-g', 'stt-h'] as const;
/** Local recognizers shipped with the service. */
export const LOCAL_PROVIDERS = ['local-sphinx'] as const;
export const ALL_PROVIDERS: readonly string[] = [...SPEC_PROVIDERS, ...LOCAL_PROVIDERS];

// Unknown names and duplicates are checked in the service (`Unknown provider: {name}`).
export const TranscribeRequest = Type.Object({
  audio_url: Type.String({ minLength: 1 }),
  providers: Type.Array(Type.String(), { minItems: 1, maxItems: 9 }),
  language: Type.Optional(Type.String()),
});
export type TranscribeRequest = Static<typeof TranscribeRequest>;

export const SttErrorCode = Type.Union([
  Type.Literal('provider_not_configured'),
  Type.Literal('provider_unavailable'),
  Type.Literal('timeout'),
  Type.Literal('upstream_error'),
  Type.Literal('unsupported_audio'),
  Type.Literal('rate_limited'),
]);
export type SttErrorCode = Static<typeof SttErrorCode>;

export const SttResult = Type.Object({
  transcript: Type.Union([Type.String(), Type.Null()]),
  latency_ms: Type.Integer(),
  confidence: Type.Union([Type.Number(), Type.Null()]),
  error: Type.Optional(Type.Object({ code: SttErrorCode, message: Type.String() })),
});
export type SttResult = Static<typeof SttResult>;

export const TranscribeResponse = Type.Object({ results: Type.Record(Type.String(), SttResult) });
export type TranscribeResponse = Static<typeof TranscribeResponse>;

export const ProviderInfo = Type.Object({
  id: Type.String(),
  adapter: Type.Union([Type.String(), Type.Null()]),
  model: Type.Union([Type.String(), Type.Null()]),
  state: Type.Union([Type.Literal('ready'), Type.Literal('not_configured'), Type.Literal('unavailable')]),
  detail: Type.Optional(Type.String()),
  streaming: Type.Boolean({ description: 'Whether the provider can stream (DESIGN §13.1)' }),
});
export const ProviderList = Type.Object({ items: Type.Array(ProviderInfo) });
export type ProviderList = Static<typeof ProviderList>;

export const AccuracyRequest = Type.Object({
  reference: Type.String(),
  hypothesis: Type.String(),
  normalize: Type.Optional(Type.Boolean({ default: true })),
  // Checked against NORMALIZER_NAMES by the route (`Unknown normalizer: {name}`), like provider names.
  normalizer: Type.Optional(Type.String({ default: 'basic', description: '`basic` (rule 12) or `whisper-en` (DESIGN §8.6); unknown → 400' })),
  alignment: Type.Optional(Type.Boolean({ default: false })),
});
export type AccuracyRequest = Static<typeof AccuracyRequest>;

export const AlignmentOp = Type.Object({
  op: Type.Union([Type.Literal('equal'), Type.Literal('substitute'), Type.Literal('insert'), Type.Literal('delete')]),
  ref: Type.Union([Type.String(), Type.Null()]),
  hyp: Type.Union([Type.String(), Type.Null()]),
});
export type AlignmentOp = Static<typeof AlignmentOp>;

export const AccuracyResult = Type.Object({
  wer: Type.Number(),
  cer: Type.Number(),
  substitutions: Type.Integer(),
  insertions: Type.Integer(),
  deletions: Type.Integer(),
  reference_words: Type.Integer(),
  hypothesis_words: Type.Integer(),
  normalizer: Type.Optional(Type.Object({ name: Type.String(), version: Type.Integer() })),
  alignment: Type.Optional(Type.Array(AlignmentOp)),
});
export type AccuracyResult = Static<typeof AccuracyResult>;
