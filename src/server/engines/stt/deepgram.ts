/**
 * Deepgram pre-recorded `POST /v1/listen?model=..&language=..&smart_format=true` with the WAV as the body.
 * Without a language Deepgram assumes English; `detect_language=true` makes it identify the language.
 */
import { SttError, type SpeakerWord, type SttAdapter } from './types.js';
import { confidenceOrNull, malformed, vendorJson } from './http.js';
import { joinUrl, type AdapterSettings } from './settings.js';
import { defineVendorAdapter } from './vendor-adapter.js';

const VENDOR = 'Deepgram';
const MAX_KEYWORDS = 100;

interface DeepgramWord {
  word?: unknown;
  punctuated_word?: unknown;
  start?: unknown;
  end?: unknown;
  speaker?: unknown;
}
interface DeepgramResponse {
  results?: { channels?: { alternatives?: { transcript?: unknown; confidence?: unknown; words?: DeepgramWord[] }[] }[] };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Deepgram's words with `diarize=true`: `speaker` (an integer from 0) and times in seconds on each word. */
export function deepgramSpeakerWords(words: readonly DeepgramWord[] | undefined): SpeakerWord[] {
  return (words ?? []).map((w) => ({
    text: String(typeof w.punctuated_word === 'string' ? w.punctuated_word : (w.word ?? '')),
    start: num(w.start),
    end: num(w.end),
    speaker: typeof w.speaker === 'number' || typeof w.speaker === 'string' ? String(w.speaker) : null,
  }));
}

/**
 * Keyterms as Deepgram's model takes them (deepgram-js-sdk `ListenV1RequestUrl`): Nova-3 models get one
 * `keyterm` per term (phrases kept whole); older models (Nova-2, Nova, Enhanced, Base) only know
 * `keywords`, single words without spaces, so each distinct word of the terms becomes one `keywords`
 * (default intensifier).
 */
export function deepgramBoost(model: string, terms: readonly string[]): [string, string][] {
  if (/^nova-3/.test(model)) return terms.map((t) => ['keyterm', t]);
  const words = [...new Set(terms.flatMap((t) => t.split(/\s+/)).filter(Boolean))];
  // Deepgram's keywords page: "If you require more than 100 keywords", train a custom model instead.
  if (words.length > MAX_KEYWORDS) throw new SttError('upstream_error', `${VENDOR} model ${model} takes at most ${MAX_KEYWORDS} keywords (single words); these keyterms hold ${words.length}`);
  return words.map((w) => ['keywords', w]);
}

/** Creates the adapter; confidence is Deepgram's own `alternatives[0].confidence`. */
export function createDeepgramAdapter(s: AdapterSettings): SttAdapter {
  const model = s.model ?? 'nova-3';
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'deepgram', model, supportsDiarization: true }, async (audio, { key, ctx, signal, language, keyterms, diarize }) => {
    const query = new URLSearchParams({ model, smart_format: 'true', punctuate: 'true' });
    if (language) query.set('language', language);
    else query.set('detect_language', 'true');
    for (const [name, value] of deepgramBoost(model, keyterms ?? [])) query.append(name, value);
    // Pre-recorded diarization (developers.deepgram.com/docs/diarization): `diarize=true` labels each word's `speaker`.
    if (diarize) query.set('diarize', 'true');
    const body = await vendorJson<DeepgramResponse>(ctx, `${joinUrl(s.baseUrl, '/v1/listen')}?${query}`, {
      method: 'POST',
      headers: { authorization: `Token ${key}`, 'content-type': 'audio/wav' },
      body: audio.wav,
      signal,
    });
    const alt = body.results?.channels?.[0]?.alternatives?.[0];
    if (!alt || typeof alt.transcript !== 'string') throw malformed(ctx, 'no results.channels[0].alternatives[0].transcript');
    const out = { transcript: alt.transcript.trim(), confidence: confidenceOrNull(alt.confidence) };
    return diarize ? { ...out, words: deepgramSpeakerWords(alt.words) } : out;
  });
}
