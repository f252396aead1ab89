/**
 * Azure AI Speech, REST API for short audio: `POST {base}/speech/recognition/conversation/cognitiveservices/v1
 * ?language=..&format=detailed` with 16 kHz PCM WAV (<= 60 s), key in `Ocp-Apim-Subscription-Key`.
 * The base is `https://{region}.stt.speech.microsoft.com` (config `region` or `base_url`).
 */
import { SttError, type SttAdapter } from './types.js';
import { confidenceOrNull, malformed, vendorJson } from './http.js';
import { joinUrl, wavAt, type AdapterSettings } from './settings.js';
import { vendorLanguage } from './languages.js';
import { defineVendorAdapter } from './vendor-adapter.js';

const VENDOR = 'Azure Speech';
const PATH = '/speech/recognition/conversation/cognitiveservices/v1';

interface AzureResponse {
  RecognitionStatus?: unknown;
  DisplayText?: unknown;
  NBest?: { Confidence?: unknown; Display?: unknown }[];
}

/** Creates the adapter; confidence is `NBest[0].Confidence` of the detailed format. */
export function createAzureAdapter(s: AdapterSettings): SttAdapter {
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'azure' }, async (audio, { key, ctx, signal, language }) => {
    const query = new URLSearchParams({ language: vendorLanguage('azure', language ?? 'en-US'), format: 'detailed' });
    const { wav } = await wavAt(audio, 16000);
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
