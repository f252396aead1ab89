/** ElevenLabs Scribe `POST {base}/v1/speech-to-text` (multipart `file`, `model_id`, `language_code`), key in `xi-api-key`. */
import { FormData } from 'undici';
import type { SttAdapter, SttAudio, TranscribeOptions } from './types.js';
import { confidenceOrNull, malformed, vendorJson } from './http.js';
import { contextOf, joinUrl, keyCheck, primaryLanguage, requireKey, type AdapterSettings } from './settings.js';

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

/** Creates the adapter (model `scribe_v1` unless configured). */
export function createElevenLabsAdapter(s: AdapterSettings): SttAdapter {
  const model = s.model ?? 'scribe_v1';
  return {
    adapter: 'elevenlabs',
    model,
    check: keyCheck(s, VENDOR),
    async transcribe(audio: SttAudio, opts: TranscribeOptions) {
      const key = requireKey(s, VENDOR);
      const ctx = contextOf(s, VENDOR);
      const form = new FormData();
      form.append('file', new Blob([audio.wav], { type: 'audio/wav' }), 'audio.wav');
      form.append('model_id', model);
      const language = opts.language ?? s.language;
      if (language) form.append('language_code', primaryLanguage(language));
      const body = await vendorJson<ScribeResponse>(ctx, joinUrl(s.baseUrl, '/v1/speech-to-text'), {
        method: 'POST',
        headers: { 'xi-api-key': key },
        body: form,
        signal: opts.signal,
      });
      if (typeof body.text !== 'string') throw malformed(ctx, 'no text');
      return { transcript: body.text.trim(), confidence: scribeConfidence(body) };
    },
  };
}
