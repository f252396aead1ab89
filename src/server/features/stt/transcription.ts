/**
 * POST /v1/stt/transcribe (DESIGN §4.11): validate the provider list, get and decode the audio once, then
 * run every provider concurrently, each under its own timeout. A provider's failure becomes its own
 * error object and never fails the request; results keep the request's order.
 */
import { performance } from 'node:perf_hooks';
import { ALL_PROVIDERS, type SttResult, type TranscribeResponse } from '../../../shared/schemas/stt.js';
import { AudioDecodeError, decodeAudio } from '../../audio/decode.js';
import { wavAroundPcm } from '../../audio/wav.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import { normalizeKeyterms } from '../../../shared/keyterms.js';
import type { SttRegistry } from '../../engines/stt/registry.js';
import { TIMEOUTS } from '../../engines/stt/vendor-table.js';
import { SttError, type RequestTiming, type SpeakerWord, type SttAudio, type SttErrorCode } from '../../engines/stt/types.js';

/** Collaborators of a transcription: the provider registry and the audio source (storage or fetch). */
export interface TranscriptionDeps {
  registry: SttRegistry;
  loadAudio: (url: string) => Promise<Uint8Array>;
  /** Aborts every provider still running (e.g. the client went away). */
  signal?: AbortSignal;
  /** Where adapter bugs are reported (their message is not shown to the client). */
  logError?: (err: unknown, provider: string) => void;
}

/** The request, as validated by the route's schema. */
export interface TranscriptionInput {
  audio_url: string;
  providers: string[];
  language?: string;
  keyterms?: string[];
}

/** The request's keyterms, trimmed, or a 400 with the shared rule's message (`Keyterm {i} must be 1..50 characters`). */
export function validateKeyterms(terms: readonly unknown[] | undefined): string[] | undefined {
  return terms === undefined ? undefined : normalizeKeyterms(terms);
}

/** Checks the provider list: known names (`Unknown provider: {name}`), no duplicates, 1..9 of them. */
export function validateProviders(providers: string[]): void {
  if (providers.length === 0) throw validationFailed('At least one provider is required');
  if (providers.length > 9) throw validationFailed('At most 9 providers can be compared at once');
  const seen = new Set<string>();
  for (const p of providers) {
    if (!ALL_PROVIDERS.includes(p)) throw validationFailed(`Unknown provider: ${p}`);
    if (seen.has(p)) throw validationFailed(`Duplicate provider: ${p}`);
    seen.add(p);
  }
}

/** Decodes the audio once for every provider: mono PCM16 at its own rate, plus the same as WAV. */
export async function prepareAudio(bytes: Uint8Array): Promise<SttAudio> {
  try {
    const d = await decodeAudio(bytes);
    // The decoder leaves room for a WAV header before the samples: the WAV shares their memory.
    return { pcm: d.pcm, sampleRate: d.sampleRate, durationSeconds: d.durationSeconds, wav: wavAroundPcm(d.pcm, d.sampleRate) };
  } catch (err) {
    if (err instanceof AudioDecodeError) throw new DomainError('unsupported_audio', err.message, { cause: err });
    throw err;
  }
}

const failed = (latencyMs: number, code: SttErrorCode, message: string): SttResult => ({
  transcript: null,
  latency_ms: latencyMs,
  confidence: null,
  error: { code, message },
});

/**
 * Runs one provider under its timeout; never throws. `latency_ms` spans the adapter call only, and for a
 * hosted vendor only from its first request leaving (DESIGN §15.4: the adapter's own work before it is
 * the service's, not the vendor's) to the answer. With
 * `keyterms` the result says whether the provider's adapter passed them on (`applied`) or has no
 * boosting parameter (`unsupported`, transcribed without them).
 */
export async function runProvider(
  deps: Pick<TranscriptionDeps, 'registry' | 'signal' | 'logError'>,
  id: string,
  audio: SttAudio,
  language: string | undefined,
  options: { keyterms?: readonly string[]; diarize?: boolean } = {},
): Promise<SttResult & Diarization> {
  const bound = deps.registry.get(id);
  if (!bound) return failed(0, 'provider_not_configured', `Provider ${id} is not bound to an adapter in the server config`);
  const boosting = options.keyterms?.length ? { keyterms: bound.adapter.supportsKeyterms ? ('applied' as const) : ('unsupported' as const) } : {};
  // DESIGN §16.3: only an adapter that reads speaker labels is asked for them; the rest are heard for WER.
  const diarize = options.diarize === true && bound.adapter.supportsDiarization === true;
  return { ...(await runBound(deps, id, bound, audio, { language, keyterms: bound.adapter.supportsKeyterms ? options.keyterms : undefined, diarize })), ...boosting };
}

/** What a hearing asked with `diarize` adds: whether speaker labels were asked for and read, and the words. */
export interface Diarization {
  diarized?: boolean;
  words?: SpeakerWord[];
}

async function runBound(
  deps: Pick<TranscriptionDeps, 'signal' | 'logError'>,
  id: string,
  bound: NonNullable<ReturnType<SttRegistry['get']>>,
  audio: SttAudio,
  request: { language: string | undefined; keyterms: readonly string[] | undefined; diarize?: boolean },
): Promise<SttResult & Diarization> {
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(deps.signal?.reason);
  deps.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const budgetMs = Math.min(TIMEOUTS.maxMs, bound.timeoutMs + Math.round((bound.timeoutPerAudioSecondMs ?? 0) * audio.durationSeconds));
  // The race makes the timeout hold even for an adapter that ignores its signal.
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new SttError('timeout', `${id} did not answer within ${budgetMs} ms`);
      controller.abort(err);
      reject(err);
    }, budgetMs);
  });
  const started = performance.now();
  const timing: RequestTiming = {};
  const elapsed = () => Math.round(performance.now() - (timing.sent ?? started));
  try {
    const { language, keyterms, diarize } = request;
    const asked = { signal: controller.signal, language, timing, ...(keyterms ? { keyterms } : {}), ...(diarize ? { diarize } : {}) };
    const out = await Promise.race([bound.adapter.transcribe(audio, asked), timeout]);
    const latency = elapsed();
    const result = { transcript: out.transcript, latency_ms: latency, confidence: out.confidence === null ? null : Math.round(out.confidence * 10_000) / 10_000 };
    return diarize ? { ...result, diarized: true, words: out.words ?? [] } : result;
  } catch (err) {
    const latency = elapsed();
    if (err instanceof SttError) return failed(latency, err.code, err.message);
    deps.logError?.(err, id);
    return failed(latency, 'upstream_error', `${id} failed unexpectedly`);
  } finally {
    clearTimeout(timer);
    deps.signal?.removeEventListener('abort', onOuterAbort);
    if (!controller.signal.aborted) controller.abort();
  }
}

/** The whole transcription: results keyed by provider in the order the request listed them. */
export async function transcribe(deps: TranscriptionDeps, input: TranscriptionInput): Promise<TranscribeResponse> {
  validateProviders(input.providers);
  const keyterms = validateKeyterms(input.keyterms);
  const audio = await prepareAudio(await deps.loadAudio(input.audio_url));
  const results = await Promise.all(input.providers.map((id) => runProvider(deps, id, audio, input.language, { keyterms })));
  const out: Record<string, SttResult> = {};
  input.providers.forEach((id, i) => {
    out[id] = results[i] as SttResult;
  });
  return { results: out };
}
