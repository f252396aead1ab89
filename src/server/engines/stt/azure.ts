/**
 * Azure AI Speech, REST API for short audio: `POST {base}/speech/recognition/conversation/cognitiveservices/v1
 * ?language=..&format=detailed` with 16 kHz PCM WAV (<= 60 s), key in `Ocp-Apim-Subscription-Key`.
 * The base is `https://{region}.stt.speech.microsoft.com` (config `region` or `base_url`).
 *
 * The short-audio API takes no phrase list (Azure documents phrase lists for the Speech SDK and the fast
 * transcription API only), so a request with keyterms goes to fast transcription instead:
 * `POST {api base}/speechtotext/transcriptions:transcribe?api-version=2024-11-15`, multipart `audio` +
 * `definition` `{"locales":[..],"phraseList":{"phrases":[..]}}`, same key, same region.
 *
 * Speaker labels likewise exist only in fast transcription (`definition.diarization`), so a request
 * asking for them goes there too (DESIGN §16.3).
 */
import { SttError, type SpeakerWord, type SttAdapter, type SttOutput } from './types.js';
import { confidenceOrNull, malformed, meanConfidence, vendorJson, type VendorContext } from './http.js';
import { joinUrl, wavAt, type AdapterSettings } from './settings.js';
import { vendorLanguage } from './languages.js';
import { defineVendorAdapter, wavForm } from './vendor-adapter.js';

const VENDOR = 'Azure Speech';
const PATH = '/speech/recognition/conversation/cognitiveservices/v1';
const FAST_PATH = '/speechtotext/transcriptions:transcribe';
const FAST_API_VERSION = '2024-11-15';
/**
 * `diarization.maxSpeakers` is a hint that must be 2..35 (TranscriptionDiarizationOptions: "greater than 1
 * and less than 36"); we do not know a call's speaker count, so the documented ceiling leaves every count possible.
 */
export const AZURE_MAX_SPEAKERS = 35;

interface AzureResponse {
  RecognitionStatus?: unknown;
  DisplayText?: unknown;
  NBest?: { Confidence?: unknown; Display?: unknown }[];
}

interface FastWord {
  text?: unknown;
  offsetMilliseconds?: unknown;
  durationMilliseconds?: unknown;
}

interface FastResponse {
  combinedPhrases?: { text?: unknown }[];
  phrases?: (FastWord & { confidence?: unknown; speaker?: unknown; words?: FastWord[] })[];
}

/**
 * The words of a fast transcription made with `diarization.enabled`: each phrase carries `speaker` (an
 * integer from 1) and its `words`, times as `offsetMilliseconds`/`durationMilliseconds`; a phrase
 * without words stands for them as one segment.
 */
export function azureSpeakerWords(body: FastResponse): SpeakerWord[] {
  const span = (w: FastWord) => {
    const off = typeof w.offsetMilliseconds === 'number' && Number.isFinite(w.offsetMilliseconds) ? w.offsetMilliseconds : null;
    const dur = typeof w.durationMilliseconds === 'number' && Number.isFinite(w.durationMilliseconds) ? w.durationMilliseconds : null;
    return { start: off === null ? null : off / 1000, end: off === null || dur === null ? null : (off + dur) / 1000 };
  };
  return (body.phrases ?? []).flatMap((p) => {
    const speaker = typeof p.speaker === 'number' || typeof p.speaker === 'string' ? String(p.speaker) : null;
    const words = (p.words ?? []).filter((w) => typeof w.text === 'string' && w.text.trim());
    const items = words.length ? words : typeof p.text === 'string' && p.text.trim() ? [p] : [];
    return items.map((w) => ({ text: String(w.text).trim(), ...span(w), speaker }));
  });
}

/**
 * Where fast transcription lives for a binding: the region's `api.cognitive.microsoft.com` host when the
 * base is the region's short-audio host, else the configured base itself (a proxy or test fake serving both).
 */
export function azureFastBase(baseUrl: string): string {
  const m = /^https:\/\/([a-z0-9-]+)\.stt\.speech\.microsoft\.com\/?$/i.exec(baseUrl);
  return m ? `https://${m[1]}.api.cognitive.microsoft.com` : baseUrl;
}

/** Transcript of a fast transcription: the combined phrases; confidence: mean of the phrases'. */
export function azureFastTranscript(body: FastResponse): SttOutput | undefined {
  if (!Array.isArray(body.combinedPhrases)) return undefined;
  const text = body.combinedPhrases.map((p) => (typeof p.text === 'string' ? p.text.trim() : '')).filter(Boolean).join(' ');
  return { transcript: text, confidence: meanConfidence((body.phrases ?? []).map((p) => p.confidence)) };
}

/** Creates the adapter; confidence is `NBest[0].Confidence` of the detailed format (fast transcription: mean phrase confidence). */
export function createAzureAdapter(s: AdapterSettings): SttAdapter {
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'azure', supportsDiarization: true }, async (audio, { key, ctx, signal, language, keyterms, diarize }) => {
    const locale = vendorLanguage('azure', language ?? 'en-US');
    const { wav } = await wavAt(audio, 16000);
    if (keyterms || diarize) return fastTranscription(s, ctx, { key, signal, locale, wav, phrases: keyterms, diarize });
    const query = new URLSearchParams({ language: locale, format: 'detailed' });
    const body = await vendorJson<AzureResponse>(ctx, `${joinUrl(s.baseUrl, PATH)}?${query}`, {
      method: 'POST',
      headers: {
        'ocp-apim-subscription-key': key,
        'content-type': 'audio/wav; codecs=audio/pcm; samplerate=16000',
        accept: 'application/json',
      },
      body: wav,
      signal,
    });
    switch (body.RecognitionStatus) {
      case 'Success': {
        const best = body.NBest?.[0];
        const text = typeof best?.Display === 'string' ? best.Display : body.DisplayText;
        if (typeof text !== 'string') throw malformed(ctx, 'no NBest[0].Display');
        return { transcript: text.trim(), confidence: confidenceOrNull(best?.Confidence) };
      }
      // No speech recognised is an answer, not a failure: an empty transcript.
      case 'NoMatch':
      case 'InitialSilenceTimeout':
      case 'BabbleTimeout':
        return { transcript: '', confidence: null };
      case undefined:
        throw malformed(ctx, 'no RecognitionStatus');
      default:
        throw new SttError('upstream_error', `${VENDOR} recognition failed: ${String(body.RecognitionStatus)}`);
    }
  });
}

async function fastTranscription(
  s: AdapterSettings,
  ctx: VendorContext,
  req: { key: string; signal: AbortSignal; locale: string; wav: Buffer; phrases: readonly string[] | undefined; diarize: boolean },
): Promise<SttOutput> {
  const form = await wavForm(req, 'audio');
  const definition: Record<string, unknown> = { locales: [req.locale] };
  if (req.phrases) definition.phraseList = { phrases: [...req.phrases] };
  // TranscriptionDiarizationOptions {enabled, maxSpeakers}: each phrase then carries a `speaker`.
  if (req.diarize) definition.diarization = { enabled: true, maxSpeakers: AZURE_MAX_SPEAKERS };
  form.append('definition', JSON.stringify(definition));
  const url = `${joinUrl(azureFastBase(s.baseUrl), FAST_PATH)}?api-version=${FAST_API_VERSION}`;
  const body = await vendorJson<FastResponse>(ctx, url, { method: 'POST', headers: { 'ocp-apim-subscription-key': req.key }, body: form, signal: req.signal });
  const out = azureFastTranscript(body);
  if (!out) throw malformed(ctx, 'no combinedPhrases');
  return req.diarize ? { ...out, words: azureSpeakerWords(body) } : out;
}
