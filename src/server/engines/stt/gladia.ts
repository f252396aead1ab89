/**
 * Gladia v2: `POST {base}/v2/upload` (multipart `audio`) → `audio_url`; `POST /v2/pre-recorded` JSON →
 * `{id, result_url}`; poll `GET /v2/pre-recorded/{id}` (`queued`/`processing` → `done` | `error`).
 */
import { SttError, type SpeakerWord, type SttAdapter } from './types.js';
import { malformed, meanConfidence, pollJob, vendorJson } from './http.js';
import { joinUrl, type AdapterSettings } from './settings.js';
import { vendorLanguage } from './languages.js';
import { defineVendorAdapter, wavForm } from './vendor-adapter.js';

const VENDOR = 'Gladia';

interface GladiaUtterance {
  confidence?: unknown;
  start?: unknown;
  end?: unknown;
  text?: unknown;
  speaker?: unknown;
  words?: { word?: unknown; start?: unknown; end?: unknown }[];
}

interface GladiaJob {
  status?: unknown;
  error_code?: unknown;
  result?: { transcription?: { full_transcript?: unknown; utterances?: GladiaUtterance[] } } | null;
}

/**
 * The words of a transcription made with `diarization: true`: each utterance carries `speaker` (an index
 * from 0, by order of appearance) and its `words` (`word`, `start`/`end` in seconds); an utterance without
 * words stands for them as one segment.
 */
export function gladiaSpeakerWords(utterances: readonly GladiaUtterance[] | undefined): SpeakerWord[] {
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return (utterances ?? []).flatMap((u) => {
    const speaker = typeof u.speaker === 'number' || typeof u.speaker === 'string' ? String(u.speaker) : null;
    const words = (u.words ?? []).filter((w) => typeof w.word === 'string' && w.word.trim());
    if (!words.length) return typeof u.text === 'string' && u.text.trim() ? [{ text: u.text.trim(), start: num(u.start), end: num(u.end), speaker }] : [];
    return words.map((w) => ({ text: String(w.word).trim(), start: num(w.start), end: num(w.end), speaker }));
  });
}

/**
 * Creates the adapter; confidence is the mean of the utterances' `confidence` (no transcript-level one).
 * Gladia's pre-recorded request has no model choice, so a binding cannot name one (config validation).
 */
export function createGladiaAdapter(s: AdapterSettings): SttAdapter {
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'gladia', model: null, supportsDiarization: true }, async (audio, { key, ctx, signal, language, keyterms, diarize }) => {
    const languages = language ? [vendorLanguage('gladia', language)] : undefined;
    const upload = await vendorJson<{ audio_url?: unknown }>(ctx, joinUrl(s.baseUrl, '/v2/upload'), {
      method: 'POST',
      headers: { 'x-gladia-key': key },
      body: await wavForm(audio, 'audio'),
      signal,
    });
    if (typeof upload.audio_url !== 'string') throw malformed(ctx, 'no audio_url');
    const request: Record<string, unknown> = { audio_url: upload.audio_url };
    if (languages) request.language_config = { languages, code_switching: false };
    // PreRecordedV2InitTranscriptionRequest: `custom_vocabulary: true` enables `custom_vocabulary_config.vocabulary`.
    if (keyterms) {
      request.custom_vocabulary = true;
      request.custom_vocabulary_config = { vocabulary: [...keyterms] };
    }
    // PreRecordedV2InitTranscriptionRequest.diarization (docs.gladia.io speaker diarization): each utterance gets a `speaker`.
    if (diarize) request.diarization = true;
    const created = await vendorJson<{ id?: unknown; result_url?: unknown }>(ctx, joinUrl(s.baseUrl, '/v2/pre-recorded'), {
      method: 'POST',
      headers: { 'x-gladia-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal,
    });
    if (typeof created.id !== 'string') throw malformed(ctx, 'no job id');
    // Poll our configured base, not the returned `result_url`: the key must only go to the base we trust.
    const done = await pollJob<GladiaJob>(ctx, joinUrl(s.baseUrl, `/v2/pre-recorded/${encodeURIComponent(created.id)}`), {
      headers: { 'x-gladia-key': key },
      signal,
      intervalMs: s.pollIntervalMs,
      finished: (j) => j.status === 'done' || j.status === 'error',
    });
    if (done.status === 'error') {
      throw new SttError('upstream_error', `${VENDOR} transcription failed${done.error_code != null ? ` (error_code ${String(done.error_code)})` : ''}`);
    }
    const tr = done.result?.transcription;
    if (!tr || typeof tr.full_transcript !== 'string') throw malformed(ctx, 'no result.transcription.full_transcript');
    const out = { transcript: tr.full_transcript.trim(), confidence: meanConfidence((tr.utterances ?? []).map((u) => u.confidence)) };
    return diarize ? { ...out, words: gladiaSpeakerWords(tr.utterances) } : out;
  });
}
