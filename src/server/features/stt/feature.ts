/** The STT feature as its routes use it: transcription, streams and the providers' states (DESIGN §4.11, §13.2). */
import type { ProviderList, TranscribeResponse } from '../../../shared/schemas/stt.js';
import type { StreamEventLine, StreamRequest, StreamResult } from '../../../shared/schemas/stt-stream.js';
import type { SttRegistry } from '../../engines/stt/registry.js';
import type { FrameScheduler } from '../../engines/stt/streaming/scheduler.js';
import type { StreamLimits } from '../../engines/stt/streaming/bounds.js';
import { prepareStreams } from './stt-streaming.js';
import { transcribe, type TranscriptionInput } from './transcription.js';

/** What the STT routes call. */
export interface SttFeature {
  /** The bounds of streams, read per stream (tests lower the deadline of a running service). */
  readonly streamLimits: StreamLimits;
  /** One audio URL sent to every provider asked; `signal` stops the ones still running. */
  transcribe(input: TranscriptionInput, opts: { signal: AbortSignal; logError: (err: unknown, provider: string) => void }): Promise<TranscribeResponse>;
  /** Every provider with its adapter, model and state. */
  providers(): ProviderList['items'];
  /** Checks a stream request and loads its audio; the returned function streams it to every provider. */
  prepareStreams(input: StreamRequest, signal: AbortSignal): Promise<(emit: (e: StreamEventLine) => void) => Promise<Record<string, StreamResult>>>;
}

/** Binds the STT rules to the registry, the one stream pacer and the audio loader (called once, by the composition root). */
export function createSttFeature(deps: {
  registry: SttRegistry;
  scheduler: FrameScheduler;
  streamLimits: StreamLimits;
  loadAudio: (url: string) => Promise<Uint8Array>;
}): SttFeature {
  const { registry, scheduler, streamLimits, loadAudio } = deps;
  return {
    streamLimits,
    transcribe: (input, opts) => transcribe({ registry, loadAudio, ...opts }, input),
    providers: () => registry.states(),
    prepareStreams: (input, signal) => prepareStreams({ registry, scheduler, signal, deadline: streamLimits.deadline, loadAudio }, input),
  };
}
