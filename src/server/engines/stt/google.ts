/**
 * Google Cloud Speech-to-Text v1 synchronous `POST /v1/speech:recognize?key=KEY` with base64 LINEAR16
 * (<= 1 minute of audio; longer audio needs the async API and Cloud Storage, so it is `unsupported_audio`).
 */
import type { SpeakerWord, SttAdapter } from './types.js';
import { malformed, vendorJson } from './http.js';
import { joinUrl, wavAt, type AdapterSettings } from './settings.js';
import { vendorLanguage } from './languages.js';
import { defineVendorAdapter } from './vendor-adapter.js';

const VENDOR = 'Google Speech-to-Text';
/** LINEAR16 rates Google accepts; anything else is resampled to 16 kHz, its recommended rate. */
const MIN_RATE = 8000;
const MAX_RATE = 48000;

interface GoogleWord {
  word?: unknown;
  startTime?: unknown;
  endTime?: unknown;
  speakerTag?: unknown;
  speakerLabel?: unknown;
}

interface RecognizeResponse {
  results?: { alternatives?: { transcript?: unknown; confidence?: unknown; words?: GoogleWord[] }[] }[];
}

/** A protobuf Duration in its JSON form (`"1.500s"`) as seconds; null when absent or not one. */
export function googleSeconds(v: unknown): number | null {
  const m = typeof v === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(v) : null;
  return m ? Number(m[1]) : null;
}

/**
 * The words of a recognition made with `diarizationConfig.enableSpeakerDiarization`: Google puts every
 * word from the beginning of the audio in the top alternative of the last result, each with its speaker
 * (`speakerLabel`, else the older `speakerTag` from 1; 0 or absent is no speaker) and, with
 * `enableWordTimeOffsets`, `startTime`/`endTime` as durations (`"1.500s"`).
 */
export function googleSpeakerWords(body: RecognizeResponse): SpeakerWord[] {
  const last = (body.results ?? []).filter((r) => r.alternatives?.[0]?.words?.length).at(-1);
  return (last?.alternatives?.[0]?.words ?? []).map((w) => {
    const label = typeof w.speakerLabel === 'string' && w.speakerLabel ? w.speakerLabel : typeof w.speakerTag === 'number' && w.speakerTag > 0 ? String(w.speakerTag) : null;
    return { text: String(w.word ?? ''), start: googleSeconds(w.startTime), end: googleSeconds(w.endTime), speaker: label };
  });
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
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'google', supportsDiarization: true }, async (audio, { key, ctx, signal, language, keyterms, diarize }) => {
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
    if (diarize) {
      // v1 RecognitionConfig.diarizationConfig (SpeakerDiarizationConfig): speaker counts left to Google's
      // defaults (2..6); word times are only given with enableWordTimeOffsets.
      config.diarizationConfig = { enableSpeakerDiarization: true };
      config.enableWordTimeOffsets = true;
    }
    const content = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
    const body = await vendorJson<RecognizeResponse>(ctx, `${joinUrl(s.baseUrl, '/v1/speech:recognize')}?key=${encodeURIComponent(key)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ config, audio: { content } }),
      signal,
    });
    const out = googleTranscript(body);
    if (!out) throw malformed(ctx, 'results is not a list');
    return diarize ? { ...out, words: googleSpeakerWords(body) } : out;
  });
}
