import { Type, type Static } from '@sinclair/typebox';
import { STREAM_PACE_MAX as PACE_MAX, STREAM_PACE_MIN as PACE_MIN } from '../constants.js';
import { SttErrorCode } from './stt.js';

/** POST /v1/stt/stream: one audio to several streaming providers at once (DESIGN §13.3). */
export const StreamRequest = Type.Object({
  audio_url: Type.String({ minLength: 1 }),
  providers: Type.Array(Type.String(), { minItems: 1, maxItems: 9 }),
  language: Type.Optional(Type.String()),
  pace: Type.Optional(Type.Number({ minimum: PACE_MIN, maximum: PACE_MAX, default: 1, description: '1.0 = real time' })),
  keyterms: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
});
export type StreamRequest = Static<typeof StreamRequest>;

/** One provider's streamed result with the §13.2 latency figures (ms, monotonic clock of the server). */
export const StreamResult = Type.Object({
  transcript: Type.Union([Type.String(), Type.Null()]),
  first_partial_ms: Type.Union([Type.Integer(), Type.Null()]),
  final_latency_ms: Type.Union([Type.Integer(), Type.Null()]),
  revisions: Type.Integer(),
  early_words: Type.Integer(),
  end_of_speech_ms: Type.Union([Type.Number(), Type.Null()]),
  achieved_pace: Type.Union([Type.Number(), Type.Null()]),
  send_jitter_p99_ms: Type.Number(),
  error: Type.Optional(Type.Object({ code: SttErrorCode, message: Type.String() })),
});
export type StreamResult = Static<typeof StreamResult>;

/**
 * The answer of POST /v1/stt/stream is NDJSON, one event a line, as it happens: `start`; `partial` and
 * `final` per provider result (`at_ms` from that provider's first frame); `result` when a provider's
 * stream is over; `done` with every result last.
 */
export const StreamEventLine = Type.Union([
  Type.Object({ event: Type.Literal('start'), providers: Type.Array(Type.String()), audio_ms: Type.Integer(), end_of_speech_ms: Type.Union([Type.Number(), Type.Null()]), pace: Type.Number() }),
  Type.Object({ event: Type.Union([Type.Literal('partial'), Type.Literal('final')]), provider: Type.String(), text: Type.String(), at_ms: Type.Number() }),
  Type.Object({ event: Type.Literal('result'), provider: Type.String(), result: StreamResult }),
  Type.Object({ event: Type.Literal('done'), results: Type.Record(Type.String(), StreamResult) }),
]);
export type StreamEventLine = Static<typeof StreamEventLine>;
export type StreamDone = Extract<StreamEventLine, { event: 'done' }>;
