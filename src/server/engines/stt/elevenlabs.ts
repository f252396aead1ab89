/** ElevenLabs Scribe `POST {base}/v1/speech-to-text` (multipart `file`, `model_id`, `language_code`), key in `xi-api-key`. */
import type { SpeakerWord, SttAdapter } from './types.js';
import { confidenceOrNull, malformed, vendorJson } from './http.js';
import { joinUrl, type AdapterSettings } from './settings.js';
import { primaryLanguage } from './languages.js';
import { defineVendorAdapter, wavForm } from './vendor-adapter.js';

const VENDOR = 'ElevenLabs';

interface ScribeResponse {
  text?: unknown;
  words?: { text?: unknown; type?: unknown; start?: unknown; end?: unknown; speaker_id?: unknown; logprob?: unknown }[];
}

/**
 * The words of a transcript made with `diarize=true`: the `word` entries (not `spacing` or
 * `audio_event`), each with `speaker_id` (`speaker_0`, …) and `start`/`end` in seconds.
 */
export function scribeSpeakerWords(body: ScribeResponse): SpeakerWord[] {
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return (body.words ?? [])
    .filter((w) => (w.type === undefined || w.type === 'word') && typeof w.text === 'string' && w.text.trim())
    .map((w) => ({ text: String(w.text).trim(), start: num(w.start), end: num(w.end), speaker: typeof w.speaker_id === 'string' && w.speaker_id ? w.speaker_id : null }));
}

/**
 * Scribe has no transcript-level confidence; derived as exp(mean logprob) over the `word` entries (the
 * geometric mean of the word probabilities), null when no word carries a logprob.
 */
export function scribeConfidence(body: ScribeResponse): number | null {
  const lps = (body.words ?? [])
    .filter((w) => w.type === undefined || w.type === 'word')
    .map((w) => w.logprob)
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return lps.length ? confidenceOrNull(Math.exp(lps.reduce((a, v) => a + v, 0) / lps.length)) : null;
}

/** Creates the adapter (model `scribe_v2`, the current one, unless configured). */
export function createElevenLabsAdapter(s: AdapterSettings): SttAdapter {
  const model = s.model ?? 'scribe_v2';
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'elevenlabs', model, supportsDiarization: true }, async (audio, { key, ctx, signal, language, keyterms, diarize }) => {
    const form = await wavForm(audio, 'file');
    form.append('model_id', model);
    if (language) form.append('language_code', primaryLanguage(language));
    // BodySpeechToTextV1SpeechToTextPost.keyterms: one multipart field per term, as the SDK appends them.
    for (const term of keyterms ?? []) form.append('keyterms', term);
    // BodySpeechToTextV1SpeechToTextPost.diarize: "Whether to annotate which speaker is currently talking"; each word gets `speaker_id`.
    if (diarize) form.append('diarize', 'true');
    const body = await vendorJson<ScribeResponse>(ctx, joinUrl(s.baseUrl, '/v1/speech-to-text'), {
      method: 'POST',
      headers: { 'xi-api-key': key },
      body: form,
      signal,
    });
    if (typeof body.text !== 'string') throw malformed(ctx, 'no text');
    const out = { transcript: body.text.trim(), confidence: scribeConfidence(body) };
    return diarize ? { ...out, words: scribeSpeakerWords(body) } : out;
  });
}
