/**
 * How a provider hears an utterance (DESIGN §8.2, §13.2) and the passes run beyond the first hearing
 * (DESIGN §12.4): the work kind asks these and never branches on the mode or the probes itself.
 */
import type { SttResult } from '../../../shared/schemas/stt.js';
import type { SpeakerWord, SttAudio } from '../../engines/stt/types.js';
import type { StreamedResult } from '../stt/index.js';
import type { UtteranceResult } from './scoring.js';
import type { EvaluationContext } from './utterance-context.js';

/** A hearing asked with `diarize` (DESIGN §16.3): the words with their speakers, when the adapter reads them. */
export interface DiarizedResult extends SttResult {
  /** Whether the provider's adapter asked for and read speaker labels; false: scored for WER only. */
  diarized?: boolean;
  words?: SpeakerWord[];
}

/** The recognisers as the work kind is given them. */
export interface Recognisers {
  /** Calls one provider under its timeout; never throws (failures are results with an `error`). */
  transcribe(provider: string, audio: SttAudio, signal: AbortSignal, keyterms?: readonly string[], options?: { diarize?: boolean }): Promise<DiarizedResult>;
  /** Streams the audio to one provider at `pace` and measures it (DESIGN §13.2); never throws. Absent: no streaming evaluations. */
  stream?(provider: string, audio: SttAudio, pace: number, signal: AbortSignal): Promise<StreamedResult>;
  /** Whether a provider's adapter has a boosting parameter (the keyterm probe's second pass, DESIGN §12.4). */
  keytermsSupported?(provider: string): boolean;
}

/** One hearing of an audio by a provider. */
export type Hear = (provider: string, audio: SttAudio, signal: AbortSignal) => Promise<DiarizedResult | StreamedResult>;

/**
 * How the providers of `ctx` hear its audio: whole files (batch), whole calls asking each vendor for its
 * speakers (a conversation, DESIGN §16.3), or a stream at the evaluation's pace.
 */
export function hearingOf(r: Recognisers, ctx: Pick<EvaluationContext, 'pace' | 'calls'>): Hear {
  const { pace } = ctx;
  if (ctx.calls) return (provider, audio, signal) => r.transcribe(provider, audio, signal, undefined, { diarize: true });
  if (pace === undefined) return (provider, audio, signal) => r.transcribe(provider, audio, signal);
  return (provider, audio, signal) => {
    if (!r.stream) throw new Error('This runner was built without streaming');
    return r.stream(provider, audio, pace, signal);
  };
}

/** What a streamed hearing adds to a scored result (DESIGN §13.2). */
export function withStreamingMeasures(scored: UtteranceResult, result: SttResult | StreamedResult): UtteranceResult {
  if (!('final_latency_ms' in result)) return scored;
  return { ...scored, first_partial_ms: result.first_partial_ms, final_latency_ms: result.final_latency_ms, revisions: result.revisions, early_words: result.early_words };
}

/**
 * A pass run after the first hearing of a speech utterance: it hears the same audio again in its own way
 * and adds its columns to the result; `undefined` when the evaluation stopped meanwhile.
 */
export interface ExtraPass {
  applies(r: Recognisers, ctx: EvaluationContext, provider: string): boolean;
  run(r: Recognisers, ctx: EvaluationContext, provider: string, audio: SttAudio, signal: AbortSignal): Promise<Partial<UtteranceResult>>;
}

/** The keyterm probe (DESIGN §12.4): the same audio again, with the vendor's own boosting. */
const keytermPass: ExtraPass = {
  applies: (r, ctx, provider) => ctx.probes?.keyterms?.terms !== undefined && r.keytermsSupported?.(provider) === true,
  async run(r, ctx, provider, audio, signal) {
    const boosted = await r.transcribe(provider, audio, signal, ctx.probes!.keyterms!.terms);
    return { boosted_transcript: boosted.transcript, boosted_error: boosted.transcript === null ? (boosted.error?.message ?? 'No transcript') : null };
  },
};

/** The passes beyond the first hearing, in the order they run. */
export const EXTRA_PASSES: readonly ExtraPass[] = [keytermPass];
