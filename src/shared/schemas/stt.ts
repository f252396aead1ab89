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
  // Bounds are checked in the service with the API's own messages (src/shared/keyterms.ts).
  keyterms: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Terms each provider is asked to favour with its own boosting parameter (DESIGN §12.4): 1..100 strings, each 1..50 characters after trimming',
    }),
  ),
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
  /** Present only when the request had keyterms: whether this provider passed them to its vendor. */
  keyterms: Type.Optional(
    Type.Union([Type.Literal('applied'), Type.Literal('unsupported')], {
      description: "Only when the request had keyterms: `applied` (sent in the vendor's boosting parameter) or `unsupported` (no such parameter; transcribed without them)",
    }),
  ),
});
export type SttResult = Static<typeof SttResult>;

export const TranscribeResponse = Type.Object({ results: Type.Record(Type.String(), SttResult) });
export type TranscribeResponse = Static<typeof TranscribeResponse>;

export const ProviderInfo = Type.Object({
  id: Type.String(),
  adapter: Type.Union([Type.String(), Type.Null()]),
  model: Type.Union([Type.String(), Type.Null()]),
  /** The token with its adapter and model, `stt-b · deepgram nova-3`; the token alone when unbound. */
  label: Type.String(),
  state: Type.Union([Type.Literal('ready'), Type.Literal('not_configured'), Type.Literal('unavailable')]),
  detail: Type.Optional(Type.String()),
  /** The binding's list price per minute of audio in USD (`price_per_minute_usd`), when the config gives one. */
  price_per_minute_usd: Type.Optional(Type.Number({ minimum: 0 })),
  /** What this adapter's results mean where it is weak (PocketSphinx on telephone audio). */
  note: Type.Optional(Type.String()),
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
  // Types and values are checked by the shared entity rules (`Invalid entity {i}: {reason}`, DESIGN §12.3).
  entities: Type.Optional(
    Type.Array(Type.Object({ type: Type.String({ description: 'digits, phone, number, money, date, time, email or code' }), value: Type.String() }), {
      description: 'Entities (canonical values) to look for in the hypothesis with the entity-aware matcher',
    }),
  ),
});
export type AccuracyRequest = Static<typeof AccuracyRequest>;

export const EntityResult = Type.Object({ type: Type.String(), value: Type.String(), found: Type.Boolean() });

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
  entities: Type.Optional(Type.Array(EntityResult)),
});
export type AccuracyResult = Static<typeof AccuracyResult>;
