/**
 * POST /v1/stt/stream (DESIGN §13.3): one audio streamed to several providers at once, at `pace`,
 * through the process's shared frame scheduler; every provider's partial and final results are passed
 * on as they arrive, then its §13.2 figures. The checks come first and answer 400 before anything is
 * streamed; a provider that fails mid-stream fails alone (its `error`), like `/v1/stt/transcribe`.
 * Every stream, here and in streaming evaluations, ends by its deadline (DESIGN §17.5).
 */
import { performance } from 'node:perf_hooks';
import { validationFailed } from '../../../shared/errors.js';
import { speechBounds } from '../../../shared/streaming/speech-bounds.js';
import type { StreamEventLine, StreamRequest, StreamResult } from '../../../shared/schemas/stt-stream.js';
import type { SttResult } from '../../../shared/schemas/stt.js';
import type { SttRegistry } from '../../engines/stt/registry.js';
import { streamDeadlineMs, type StreamDeadline } from '../../engines/stt/streaming/bounds.js';
import { runStream, startBarrier, type StreamRun } from '../../engines/stt/streaming/run.js';
import type { FrameScheduler } from '../../engines/stt/streaming/scheduler.js';
import type { SttAudio } from '../../engines/stt/types.js';
import { prepareAudio, validateProviders } from './transcription.js';

/** What streaming needs: the providers, the shared pacer, and the audio source. */
export interface SttStreamingDeps {
  registry: SttRegistry;
  scheduler: FrameScheduler;
  loadAudio: (url: string) => Promise<Uint8Array>;
  /** Aborts every stream still running (the client went away). */
  signal?: AbortSignal;
  /** The constants of the streams' deadline (default DESIGN §17.5's). */
  deadline?: StreamDeadline;
}

/**
 * Checks a list of providers for streaming: known names (`Unknown provider: {name}`), bound and keyed
 * (`Provider not configured: {name}`), able to stream (`Provider does not stream: {token}`, §13.2).
 * Shared with streaming evaluations.
 */
export function checkStreamingProviders(registry: SttRegistry, providers: string[]): void {
  validateProviders(providers);
  const states = new Map(registry.states().map((s) => [s.id, s]));
  for (const p of providers) {
    if (states.get(p)?.state === 'not_configured') throw validationFailed(`Provider not configured: ${p}`);
  }
  for (const p of providers) {
    if (!registry.get(p)?.streaming) throw validationFailed(`Provider does not stream: ${p}`);
  }
}

/** A run's figures as the API shows them (transcript null when the stream failed). */
export function streamResultOf(run: StreamRun): StreamResult {
  return {
    transcript: run.error ? null : run.transcript,
    first_partial_ms: run.first_partial_ms,
    final_latency_ms: run.final_latency_ms,
    revisions: run.revisions,
    early_words: run.early_words,
    end_of_speech_ms: run.end_of_speech_ms,
    achieved_pace: run.achieved_pace === null ? null : Math.round(run.achieved_pace * 1000) / 1000,
    send_jitter_p99_ms: run.send_jitter_p99_ms,
    ...(run.error ? { error: run.error } : {}),
  };
}

/** One utterance streamed to one provider as an evaluation records it: the result and what the stream measured. */
export interface StreamedResult extends SttResult {
  first_partial_ms: number | null;
  final_latency_ms: number | null;
  revisions: number;
  early_words: number;
}

/**
 * Streams one audio to one provider at `pace` (DESIGN §13.2) and never throws: a refused handshake, an
 * early close or a stall is this result's `error`. `latency_ms` is the stream's wall time, from opening
 * to its end — what the provider took to hear and answer the whole utterance.
 */
export async function streamProvider(
  deps: { registry: SttRegistry; scheduler: FrameScheduler; signal?: AbortSignal; deadline?: StreamDeadline },
  provider: string,
  audio: SttAudio,
  pace: number,
): Promise<StreamedResult> {
  const started = performance.now();
  const streaming = deps.registry.get(provider)?.streaming;
  const measured = (run: Pick<StreamRun, 'first_partial_ms' | 'final_latency_ms' | 'revisions' | 'early_words'>) => ({
    first_partial_ms: run.first_partial_ms === null ? null : Math.round(run.first_partial_ms),
    final_latency_ms: run.final_latency_ms === null ? null : Math.round(run.final_latency_ms),
    revisions: run.revisions,
    early_words: run.early_words,
  });
  if (!streaming) {
    const error = { code: 'provider_not_configured' as const, message: `Provider does not stream: ${provider}` };
    return { transcript: null, latency_ms: 0, confidence: null, error, ...measured({ first_partial_ms: null, final_latency_ms: null, revisions: 0, early_words: 0 }) };
  }
  const run = await runStream({ scheduler: deps.scheduler, now: () => performance.now() }, streaming, audio, {
    pace,
    signal: deps.signal,
    deadlineMs: streamDeadlineMs(audio.durationSeconds, pace, deps.deadline),
  });
  const latency = Math.round(performance.now() - started);
  if (run.error) return { transcript: null, latency_ms: latency, confidence: null, error: run.error, ...measured(run) };
  return { transcript: run.transcript, latency_ms: latency, confidence: null, ...measured(run) };
}

/** Validates and loads the audio (throws `DomainError`s), then returns the streaming to run. */
export async function prepareStreams(deps: SttStreamingDeps, input: StreamRequest): Promise<(emit: (e: StreamEventLine) => void) => Promise<Record<string, StreamResult>>> {
  checkStreamingProviders(deps.registry, input.providers);
  const audio: SttAudio = await prepareAudio(await deps.loadAudio(input.audio_url));
  const pace = input.pace ?? 1;
  return async (emit) => {
    const speech = speechBounds(audio.pcm, audio.sampleRate);
    emit({ event: 'start', providers: input.providers, audio_ms: Math.round(audio.durationSeconds * 1000), end_of_speech_ms: speech.endMs, pace });
    const barrier = startBarrier(input.providers.length);
    // One deadline for the request, counted from here (the audio is loaded; its length is known).
    const deadlineMs = streamDeadlineMs(audio.durationSeconds, pace, deps.deadline);
    const results: Record<string, StreamResult> = {};
    await Promise.all(
      input.providers.map(async (provider) => {
        const streaming = deps.registry.get(provider)?.streaming;
        if (!streaming) throw new Error(`checked above: ${provider} streams`);
        let t0: number | undefined;
        const run = await runStream({ scheduler: deps.scheduler, now: () => performance.now() }, streaming, audio, {
          pace,
          language: input.language,
          keyterms: input.keyterms,
          signal: deps.signal,
          deadlineMs,
          barrier,
          onStarted: (at) => {
            t0 = at;
          },
          onEvent: (e) => {
            if (e.type !== 'partial' && e.type !== 'final') return;
            t0 ??= e.at;
            emit({ event: e.type, provider, text: e.text, at_ms: Math.round(e.at - t0) });
          },
        });
        results[provider] = streamResultOf(run);
        emit({ event: 'result', provider, result: results[provider] });
      }),
    );
    // Keep the request's order.
    return Object.fromEntries(input.providers.map((p) => [p, results[p] as StreamResult]));
  };
}
