/**
 * OpenAI `POST /v1/audio/transcriptions` (multipart `file`, `model`, `language`, `response_format`), and
 * every server speaking the same API: Groq, speaches/faster-whisper-server, LocalAI, vLLM, and
 * whisper.cpp's server (path `/inference`). A self-hosted server may need no key.
 */
import { SttError, type SttAdapter, type SttAudio, type TranscribeOptions } from './types.js';
import { confidenceOrNull, malformed, vendorJson } from './http.js';
import { contextOf, joinUrl, primaryLanguage, requireKey, type AdapterSettings } from './settings.js';
import { wavForm } from './vendor-adapter.js';

const VENDOR = 'OpenAI';
/** OpenAI refuses files over 25 MB. */
const MAX_BYTES = 25 * 1024 * 1024;

interface OpenAiTranscription {
  text?: unknown;
  segments?: { avg_logprob?: unknown }[];
  logprobs?: { logprob?: unknown }[];
}

/**
 * Confidence, derived because the API has no transcript-level field:
 * - `verbose_json` (whisper-1, most self-hosted servers): mean over segments of exp(avg_logprob), the
 *   segment's mean token probability;
 * - gpt-4o models with `include[]=logprobs`: exp(mean token logprob), the geometric mean probability;
 * - otherwise null.
 */
export function openAiConfidence(body: OpenAiTranscription): number | null {
  const segs = (body.segments ?? []).map((s) => s.avg_logprob).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (segs.length) return confidenceOrNull(segs.reduce((a, v) => a + Math.exp(v), 0) / segs.length);
  const lps = (body.logprobs ?? []).map((t) => t.logprob).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (lps.length) return confidenceOrNull(Math.exp(lps.reduce((a, v) => a + v, 0) / lps.length));
  return null;
}

/** Creates the adapter; `settings.path` defaults to `/v1/audio/transcriptions`. */
export function createOpenAiAdapter(s: AdapterSettings): SttAdapter {
  const model = s.model ?? 'whisper-1';
  // Only whisper-1 (and whisper servers) return segments; gpt-4o models take `include[]=logprobs` instead.
  const gpt4o = /^gpt-4o/.test(model);
  return {
    adapter: 'openai',
    model,
    // A self-hosted server may need no key: only a configured but unset variable makes it not ready.
    check: () => (s.apiKeyEnv && !s.apiKey() ? { ok: false, detail: `${s.apiKeyEnv} is not set` } : { ok: true }),
    async transcribe(audio: SttAudio, opts: TranscribeOptions) {
      if (audio.wav.length > MAX_BYTES) throw new SttError('unsupported_audio', `${VENDOR} accepts files up to 25 MB; the audio is ${(audio.wav.length / 1048576).toFixed(1)} MB as WAV`);
      const ctx = contextOf(s, VENDOR);
      const form = wavForm(audio, 'file');
      form.append('model', model);
      const language = opts.language ?? s.language;
      if (language) form.append('language', primaryLanguage(language));
      form.append('response_format', gpt4o ? 'json' : 'verbose_json');
      if (gpt4o) form.append('include[]', 'logprobs');
      form.append('temperature', '0');
      const key = s.apiKeyEnv ? requireKey(s, VENDOR) : undefined;
      const body = await vendorJson<OpenAiTranscription>(ctx, joinUrl(s.baseUrl, s.path ?? '/v1/audio/transcriptions'), {
        method: 'POST',
        headers: key ? { authorization: `Bearer ${key}` } : {},
        body: form,
        signal: opts.signal,
      });
      if (typeof body.text !== 'string') throw malformed(ctx, 'no text');
      return { transcript: body.text.trim(), confidence: openAiConfidence(body) };
    },
  };
}
