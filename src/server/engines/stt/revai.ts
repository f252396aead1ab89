/**
 * Rev.ai asynchronous API: `POST {base}/speechtotext/v1/jobs` (multipart `media` + `options` JSON), poll
 * `GET /jobs/{id}` (`in_progress` → `transcribed` | `failed`), then `GET /jobs/{id}/transcript` as
 * `application/vnd.rev.transcript.v1.0+json`.
 */
import { FormData } from 'undici';
import { SttError, type SttAdapter, type SttAudio, type TranscribeOptions } from './types.js';
import { malformed, meanConfidence, pollUntil, vendorJson } from './http.js';
import { contextOf, joinUrl, keyCheck, primaryLanguage, requireKey, type AdapterSettings } from './settings.js';

const VENDOR = 'Rev.ai';

interface RevJob {
  id?: unknown;
  status?: unknown;
  failure?: unknown;
  failure_detail?: unknown;
}

interface RevTranscript {
  monologues?: { elements?: { type?: unknown; value?: unknown; confidence?: unknown }[] }[];
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
  return {
    adapter: 'revai',
    model: s.model,
    check: keyCheck(s, VENDOR),
    async transcribe(audio: SttAudio, opts: TranscribeOptions) {
      const key = requireKey(s, VENDOR);
      const ctx = contextOf(s, VENDOR);
      const signal = opts.signal;
      const auth = { authorization: `Bearer ${key}` };
      const base = joinUrl(s.baseUrl, '/speechtotext/v1/jobs');
      const options: Record<string, unknown> = {};
      const language = opts.language ?? s.language;
      if (language) options.language = primaryLanguage(language);
      if (s.model) options.transcriber = s.model;
      const form = new FormData();
      form.append('media', new Blob([audio.wav], { type: 'audio/wav' }), 'audio.wav');
      form.append('options', JSON.stringify(options));
      const job = await vendorJson<RevJob>(ctx, base, { method: 'POST', headers: auth, body: form, signal });
      if (typeof job.id !== 'string') throw malformed(ctx, 'no job id');
      const jobUrl = `${base}/${encodeURIComponent(job.id)}`;
      const done = await pollUntil({
        ctx,
        signal,
        intervalMs: s.pollIntervalMs,
        step: async () => {
          const j = await vendorJson<RevJob>(ctx, jobUrl, { headers: auth, signal });
          return j.status === 'transcribed' || j.status === 'failed' ? j : undefined;
        },
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
      return out;
    },
  };
}
