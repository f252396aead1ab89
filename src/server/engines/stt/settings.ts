import type { fetch as undiciFetch } from 'undici';
import { encodeWav } from '../../audio/wav.js';
import { resamplePcm16 } from '../../audio/resample.js';
import { SttError, type SttAudio } from './types.js';
import type { VendorContext } from './http.js';

/** What every vendor adapter is built from (a validated config binding plus its defaults). */
export interface AdapterSettings {
  /** Vendor API origin (and prefix), no trailing slash; tests point it at a loopback fake. */
  baseUrl: string;
  model: string | null;
  /** Default language when the request names none. */
  language?: string;
  /** Endpoint path override (openai: whisper.cpp's `/inference`). */
  path?: string;
  /** Pause between status polls of job-based vendors (default 1000 ms). */
  pollIntervalMs: number;
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

/** The vendor context of one call: name, secrets to scrub, fetch. */
export function contextOf(s: AdapterSettings, vendor: string): VendorContext {
  const key = s.apiKey();
  return { vendor, secrets: key ? [key] : [], fetch: s.fetch };
}

/** `en-US` → `en` (vendors that take ISO 639-1 codes). */
export function primaryLanguage(language: string): string {
  return (language.split(/[-_]/)[0] ?? language).toLowerCase();
}

/** `en` → `en-US`-style BCP-47 as given, defaulting to `fallback` (vendors that need a locale). */
export function locale(language: string | undefined, fallback: string): string {
  return language && language.trim() ? language.trim() : fallback;
}

/** The audio as 16-bit mono WAV at `rate` (resampled when needed), plus its samples. */
export async function wavAt(audio: SttAudio, rate: number): Promise<{ wav: Buffer; pcm: Int16Array }> {
  if (audio.sampleRate === rate) return { wav: audio.wav, pcm: audio.pcm };
  const pcm = await resamplePcm16(audio.pcm, audio.sampleRate, rate);
  return { wav: encodeWav(pcm, rate), pcm };
}

/** Throws `unsupported_audio` when a vendor's synchronous endpoint cannot take audio this long. */
export function maxDuration(audio: SttAudio, seconds: number, vendor: string): void {
  if (audio.durationSeconds > seconds) {
    throw new SttError('unsupported_audio', `${vendor} accepts at most ${seconds} s of audio here; got ${audio.durationSeconds.toFixed(1)} s`);
  }
}

/** Joins a base URL and a path with exactly one slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
