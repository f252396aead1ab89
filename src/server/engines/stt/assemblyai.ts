/**
 * AssemblyAI: `POST /v2/upload` (raw bytes) → `upload_url`; `POST /v2/transcript` → `id`; poll
 * `GET /v2/transcript/{id}` until `completed` or `error`. The key goes in `authorization` as-is.
 */
import { SttError, type SpeakerWord, type SttAdapter } from './types.js';
import { confidenceOrNull, malformed, pollJob, vendorJson } from './http.js';
import { joinUrl, type AdapterSettings } from './settings.js';
import { defineVendorAdapter } from './vendor-adapter.js';
import { vendorLanguage } from './languages.js';

const VENDOR = 'AssemblyAI';

interface Transcript {
  id?: unknown;
  status?: unknown;
  text?: unknown;
  confidence?: unknown;
  error?: unknown;
  words?: { text?: unknown; start?: unknown; end?: unknown; speaker?: unknown }[];
}

/** AssemblyAI's words with `speaker_labels: true`: `speaker` a letter (`A`, `B`…), times in milliseconds. */
export function assemblyAiSpeakerWords(words: Transcript['words']): SpeakerWord[] {
  const sec = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v / 1000 : null);
  return (words ?? []).map((w) => ({ text: String(w.text ?? ''), start: sec(w.start), end: sec(w.end), speaker: typeof w.speaker === 'string' && w.speaker ? w.speaker : null }));
}

/** Creates the adapter; confidence is the transcript-level `confidence` AssemblyAI returns. */
export function createAssemblyAiAdapter(s: AdapterSettings): SttAdapter {
  const model = s.model ?? 'universal-2';
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'assemblyai', model, supportsDiarization: true }, async (audio, { key, ctx, signal, language, keyterms, diarize }) => {
    // Mapped before the upload, so an unlisted language costs no transfer.
    const languageFields = language ? { language_code: vendorLanguage('assemblyai', language) } : { language_detection: true };
    const upload = await vendorJson<{ upload_url?: unknown }>(ctx, joinUrl(s.baseUrl, '/v2/upload'), {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/octet-stream' },
      body: audio.wav,
      signal,
    });
    if (typeof upload.upload_url !== 'string') throw malformed(ctx, 'no upload_url');
    const request: Record<string, unknown> = { audio_url: upload.upload_url, speech_models: [model], ...languageFields };
    // `keyterms_prompt` (TranscriptOptionalParams): up to 1000 terms of at most 6 words; never with `prompt`, which we do not send.
    if (keyterms) request.keyterms_prompt = [...keyterms];
    // Speaker diarization (TranscriptOptionalParams.speaker_labels): each word gets a `speaker` letter.
    if (diarize) request.speaker_labels = true;
    const created = await vendorJson<Transcript>(ctx, joinUrl(s.baseUrl, '/v2/transcript'), {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal,
    });
    if (typeof created.id !== 'string') throw malformed(ctx, 'no transcript id');
    const done = await pollJob<Transcript>(ctx, joinUrl(s.baseUrl, `/v2/transcript/${encodeURIComponent(created.id)}`), {
      headers: { authorization: key },
      signal,
      intervalMs: s.pollIntervalMs,
      finished: (t) => t.status === 'completed' || t.status === 'error',
    });
    if (done.status === 'error') {
      const reason = typeof done.error === 'string' ? done.error : 'transcription failed';
      throw new SttError(/unsupported|format|duration|no audio|too (long|short)/i.test(reason) ? 'unsupported_audio' : 'upstream_error', `${VENDOR}: ${reason}`);
    }
    const out = { transcript: typeof done.text === 'string' ? done.text.trim() : '', confidence: confidenceOrNull(done.confidence) };
    return diarize ? { ...out, words: assemblyAiSpeakerWords(done.words) } : out;
  });
}
