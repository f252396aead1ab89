/**
 * Rev.ai asynchronous API: `POST {base}/speechtotext/v1/jobs` (multipart `media` + `options` JSON), poll
 * `GET /jobs/{id}` (`in_progress` → `transcribed` | `failed`), then `GET /jobs/{id}/transcript` as
 * `application/vnd.rev.transcript.v1.0+json`.
 */
import { SttError, type SpeakerWord, type SttAdapter } from './types.js';
import { malformed, meanConfidence, pollJob, vendorJson } from './http.js';
import { joinUrl, type AdapterSettings } from './settings.js';
import { primaryLanguage } from './languages.js';
import { defineVendorAdapter, wavForm } from './vendor-adapter.js';

const VENDOR = 'Rev.ai';

interface RevJob {
  id?: unknown;
  status?: unknown;
  failure?: unknown;
  failure_detail?: unknown;
}

interface RevTranscript {
  monologues?: { speaker?: unknown; elements?: { type?: unknown; value?: unknown; ts?: unknown; end_ts?: unknown; confidence?: unknown }[] }[];
}

/**
 * The words of a transcript by speaker: Rev.ai groups the elements into monologues, each with its
 * `speaker` (an integer from 0); every `text` element is a word with `ts`/`end_ts` in seconds.
 */
export function revSpeakerWords(t: RevTranscript): SpeakerWord[] {
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return (t.monologues ?? []).flatMap((m) => {
    const speaker = typeof m.speaker === 'number' || typeof m.speaker === 'string' ? String(m.speaker) : null;
    return (m.elements ?? []).filter((e) => e.type === 'text' && typeof e.value === 'string').map((e) => ({ text: String(e.value), start: num(e.ts), end: num(e.end_ts), speaker }));
  });
}

/**
 * Transcript: every element value of every monologue joined as-is (Rev.ai's elements carry their own
 * spaces and punctuation). Confidence: mean of the `text` elements' confidences.
 */
export function revTranscript(t: RevTranscript): { transcript: string; confidence: number | null } | undefined {
  if (!Array.isArray(t.monologues)) return undefined;
  const elements = t.monologues.flatMap((m) => m.elements ?? []);
  const transcript = t.monologues
    .map((m) => (m.elements ?? []).map((e) => (typeof e.value === 'string' ? e.value : '')).join(''))
    .map((s) => s.trim())
    .filter(Boolean)
    .join(' ');
  return { transcript, confidence: meanConfidence(elements.filter((e) => e.type === 'text').map((e) => e.confidence)) };
}

/** Creates the adapter; `model` maps to Rev.ai's `transcriber` option (machine, low_cost, fusion). */
export function createRevAiAdapter(s: AdapterSettings): SttAdapter {
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'revai', supportsDiarization: true }, async (audio, { key, ctx, signal, language, keyterms, diarize }) => {
    const auth = { authorization: `Bearer ${key}` };
    const base = joinUrl(s.baseUrl, '/speechtotext/v1/jobs');
    const options: Record<string, unknown> = {};
    if (language) options.language = primaryLanguage(language);
    if (s.model) options.transcriber = s.model;
    // RevAiJobOptions.custom_vocabularies: CustomVocabulary[] = [{phrases}] (<= 6000 phrases per job).
    if (keyterms) options.custom_vocabularies = [{ phrases: [...keyterms] }];
    // RevAiJobOptions.skip_diarization: Rev.ai diarizes unless told to skip (default false); said explicitly
    // when speakers are wanted, so a binding's defaults can never turn the monologues' speakers off.
    if (diarize) options.skip_diarization = false;
    const form = await wavForm(audio, 'media');
    form.append('options', JSON.stringify(options));
    const job = await vendorJson<RevJob>(ctx, base, { method: 'POST', headers: auth, body: form, signal });
    if (typeof job.id !== 'string') throw malformed(ctx, 'no job id');
    const jobUrl = `${base}/${encodeURIComponent(job.id)}`;
    const done = await pollJob<RevJob>(ctx, jobUrl, {
      headers: auth,
      signal,
      intervalMs: s.pollIntervalMs,
      finished: (j) => j.status === 'transcribed' || j.status === 'failed',
    });
    if (done.status === 'failed') {
      const detail = typeof done.failure_detail === 'string' ? done.failure_detail : String(done.failure ?? 'job failed');
      const unsupported = typeof done.failure === 'string' && /invalid_media|duration|too_short|too_long|unsupported/i.test(done.failure);
      throw new SttError(unsupported ? 'unsupported_audio' : 'upstream_error', `${VENDOR}: ${detail}`);
    }
    const transcript = await vendorJson<RevTranscript>(ctx, `${jobUrl}/transcript`, {
      headers: { ...auth, accept: 'application/vnd.rev.transcript.v1.0+json' },
      signal,
    });
    const out = revTranscript(transcript);
    if (!out) throw malformed(ctx, 'no monologues');
    return diarize ? { ...out, words: revSpeakerWords(transcript) } : out;
  });
}
