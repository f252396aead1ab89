import { performance } from 'node:perf_hooks';
import type { fetch as undiciFetch } from 'undici';
import { encodeWav } from '../../audio/wav.js';
import { resamplePcm16 } from '../../audio/resample.js';
import { SttError, type RequestTiming, type SttAudio } from './types.js';
import type { VendorContext } from './http.js';
import { TIMEOUTS, type AudioLimits } from './vendor-table.js';

/** What every vendor adapter is built from (a validated config binding plus its defaults). */
export interface AdapterSettings {
  /** Vendor API origin (and prefix), no trailing slash; tests point it at a loopback fake. */
  baseUrl: string;
  model: string | null;
  /** Model of live streams (a binding's `streaming_model`); null: `model`. */
  streamingModel?: string | null;
  /** Default language when the request names none. */
  language?: string;
  /** Endpoint path override (openai: whisper.cpp's `/inference`). */
  path?: string;
  /** Pause between status polls of job-based vendors (default 3000 ms). */
  pollIntervalMs: number;
  /** Time budget of one call: this base ... */
  timeoutMs?: number;
  /** ... plus this much per second of audio (job-based vendors: 1000 by default); without it the caller's timeout alone applies. */
  timeoutPerAudioSecondMs?: number;
  /** Name of the environment variable holding the credential (for messages; never its value). */
  apiKeyEnv?: string;
  /** Reads the credential now, so a changed environment is seen without a restart. */
  apiKey: () => string | undefined;
  fetch?: typeof undiciFetch;
}

/** The credential, or `provider_not_configured` saying which variable to set. */
export function requireKey(s: AdapterSettings, vendor: string): string {
  const key = s.apiKey();
  if (key) return key;
  const where = s.apiKeyEnv ? `the environment variable ${s.apiKeyEnv}` : 'an api_key_env in the server config';
  throw new SttError('provider_not_configured', `No ${vendor} credential: set ${where}`);
}

/** Readiness of a vendor adapter: its credential is set (we do not call the vendor for a health check). */
export function keyCheck(s: AdapterSettings, vendor: string): () => { ok: true } | { ok: false; detail: string } {
  return () => {
    if (s.apiKey()) return { ok: true };
    return { ok: false, detail: s.apiKeyEnv ? `${s.apiKeyEnv} is not set` : `no api_key_env configured for ${vendor}` };
  };
}

/** The vendor context of one call: name, secrets to scrub, fetch (which marks `timing` when given). */
export function contextOf(s: AdapterSettings, vendor: string, timing?: RequestTiming): VendorContext {
  const key = s.apiKey();
  return { vendor, secrets: key ? [key] : [], fetch: timing ? timedFetch(s.fetch, timing) : s.fetch };
}

/**
 * A fetch that records in `timing` when the call's first request was handed to undici (loaded here, on
 * the first call, as vendorText would): the request's own synchronous start runs before the mark.
 */
function timedFetch(fetch: typeof undiciFetch | undefined, timing: RequestTiming): typeof undiciFetch {
  return async (input, init) => {
    const send = fetch ?? (await import('undici')).fetch;
    const response = send(input, init);
    timing.sent ??= performance.now();
    return response;
  };
}

/** The audio as 16-bit mono WAV at `rate` (resampled when needed), plus its samples. */
export async function wavAt(audio: SttAudio, rate: number): Promise<{ wav: Buffer; pcm: Int16Array }> {
  if (audio.sampleRate === rate) return { wav: audio.wav, pcm: audio.pcm };
  const pcm = await resamplePcm16(audio.pcm, audio.sampleRate, rate);
  return { wav: encodeWav(pcm, rate), pcm };
}

/** Throws `unsupported_audio`, before any call, when the audio is outside what the vendor accepts. */
export function checkLimits(audio: SttAudio, limits: AudioLimits, vendor: string): void {
  const seconds = audio.durationSeconds;
  if (limits.minSeconds !== undefined && seconds < limits.minSeconds) {
    throw new SttError('unsupported_audio', `${vendor} needs at least ${limits.minSeconds} s of audio; got ${seconds.toFixed(3)} s`);
  }
  if (limits.maxSeconds !== undefined && seconds > limits.maxSeconds) {
    throw new SttError('unsupported_audio', `${vendor} accepts at most ${limits.maxSeconds} s of audio here; got ${seconds.toFixed(1)} s`);
  }
  if (limits.maxBytes !== undefined && audio.wav.length > limits.maxBytes) {
    const mb = (n: number) => (n / 1048576).toFixed(1);
    throw new SttError('unsupported_audio', `${vendor} accepts files up to ${mb(limits.maxBytes)} MB; the audio is ${mb(audio.wav.length)} MB as WAV`);
  }
}

/** The call's time budget for this audio, or undefined when it does not grow with the audio (the caller's timeout applies). */
export function budgetMs(s: AdapterSettings, audio: SttAudio): number | undefined {
  if (!s.timeoutPerAudioSecondMs) return undefined;
  return Math.min(TIMEOUTS.maxMs, Math.round((s.timeoutMs ?? TIMEOUTS.defaultMs) + s.timeoutPerAudioSecondMs * audio.durationSeconds));
}

/**
 * Runs `work` under the caller's signal and the budget of this audio: whichever ends first aborts it, the
 * budget with a `timeout` that says how long it was and why.
 */
export async function withinBudget<T>(s: AdapterSettings, audio: SttAudio, vendor: string, outer: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ms = budgetMs(s, audio);
  if (ms === undefined) return work(outer);
  const own = new AbortController();
  const timer = setTimeout(() => {
    own.abort(new SttError('timeout', `${vendor} did not finish within ${(ms / 1000).toFixed(1)} s (the budget for ${audio.durationSeconds.toFixed(1)} s of audio)`));
  }, ms);
  try {
    return await work(AbortSignal.any([outer, own.signal]));
  } finally {
    clearTimeout(timer);
  }
}

/** Joins a base URL and a path with exactly one slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
