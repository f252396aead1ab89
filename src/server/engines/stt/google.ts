/**
 * Google Cloud Speech-to-Text v1 synchronous `POST /v1/speech:recognize?key=KEY` with base64 LINEAR16
 * (<= 1 minute of audio; longer audio needs the async API and Cloud Storage, so it is `unsupported_audio`).
 */
import type { SttAdapter } from './types.js';
import { malformed, vendorJson } from './http.js';
import { joinUrl, wavAt, type AdapterSettings } from './settings.js';
import { vendorLanguage } from './languages.js';
import { defineVendorAdapter } from './vendor-adapter.js';

const VENDOR = 'Google Speech-to-Text';
/** LINEAR16 rates Google accepts; anything else is resampled to 16 kHz, its recommended rate. */
const MIN_RATE = 8000;
const MAX_RATE = 48000;

interface RecognizeResponse {
  results?: { alternatives?: { transcript?: unknown; confidence?: unknown }[] }[];
}

/**
 * Transcript: the first alternative of every result, joined (results are consecutive stretches of audio).
 * Confidence: mean of their `confidence`, skipping 0.0, which Google documents as "not set".
 */
export function googleTranscript(body: RecognizeResponse): { transcript: string; confidence: number | null } | undefined {
  if (body.results !== undefined && !Array.isArray(body.results)) return undefined;
  const alts = (body.results ?? []).map((r) => r.alternatives?.[0]).filter((a) => a !== undefined);
  const parts = alts.map((a) => (typeof a.transcript === 'string' ? a.transcript.trim() : '')).filter(Boolean);
  const confs = alts.map((a) => a.confidence).filter((c): c is number => typeof c === 'number' && c > 0 && c <= 1);
  return { transcript: parts.join(' '), confidence: confs.length ? confs.reduce((x, y) => x + y, 0) / confs.length : null };
}

/** Creates the adapter; `model` (e.g. `latest_short`) is sent only when configured. */
export function createGoogleAdapter(s: AdapterSettings): SttAdapter {
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'google' }, async (audio, { key, ctx, signal, language, keyterms }) => {
    const languageCode = vendorLanguage('google', language ?? 'en-US');
    const rate = audio.sampleRate >= MIN_RATE && audio.sampleRate <= MAX_RATE ? audio.sampleRate : 16000;
    const { pcm } = await wavAt(audio, rate);
    const config: Record<string, unknown> = {
      encoding: 'LINEAR16',
      sampleRateHertz: rate,
      audioChannelCount: 1,
      languageCode,
      enableAutomaticPunctuation: true,
    };
    if (s.model) config.model = s.model;
    // v1 phrase hints: RecognitionConfig.speechContexts[].phrases (<= 5000 phrases of <= 100 characters).
    if (keyterms) config.speechContexts = [{ phrases: [...keyterms] }];
    const content = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
    const body = await vendorJson<RecognizeResponse>(ctx, `${joinUrl(s.baseUrl, '/v1/speech:recognize')}?key=${encodeURIComponent(key)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ config, audio: { content } }),
      signal,
    });
    const out = googleTranscript(body);
    if (!out) throw malformed(ctx, 'results is not a list');
    return out;
  });
}
