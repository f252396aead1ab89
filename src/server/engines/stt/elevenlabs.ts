/** ElevenLabs Scribe `POST {base}/v1/speech-to-text` (multipart `file`, `model_id`, `language_code`), key in `xi-api-key`. */
import type { SttAdapter } from './types.js';
import { confidenceOrNull, malformed, vendorJson } from './http.js';
import { joinUrl, type AdapterSettings } from './settings.js';
import { primaryLanguage } from './languages.js';
import { defineVendorAdapter, wavForm } from './vendor-adapter.js';

const VENDOR = 'ElevenLabs';

interface ScribeResponse {
  text?: unknown;
  words?: { type?: unknown; logprob?: unknown }[];
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
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'elevenlabs', model }, async (audio, { key, ctx, signal, language, keyterms }) => {
    const form = await wavForm(audio, 'file');
    form.append('model_id', model);
    if (language) form.append('language_code', primaryLanguage(language));
    // BodySpeechToTextV1SpeechToTextPost.keyterms: one multipart field per term, as the SDK appends them.
    for (const term of keyterms ?? []) form.append('keyterms', term);
    const body = await vendorJson<ScribeResponse>(ctx, joinUrl(s.baseUrl, '/v1/speech-to-text'), {
      method: 'POST',
      headers: { 'xi-api-key': key },
      body: form,
      signal,
    });
    if (typeof body.text !== 'string') throw malformed(ctx, 'no text');
    return { transcript: body.text.trim(), confidence: scribeConfidence(body) };
  });
}
