/**
 * OpenAI `POST /v1/audio/transcriptions` (multipart `file`, `model`, `language`, `response_format`), and
 * every server speaking the same API: Groq, speaches/faster-whisper-server, LocalAI, vLLM, and
 * whisper.cpp's server (path `/inference`). A self-hosted server may need no key.
 */
import type { SpeakerWord, SttAdapter, SttAudio, TranscribeOptions } from './types.js';
import { confidenceOrNull, malformed, vendorJson } from './http.js';
import { checkLimits, contextOf, joinUrl, requireKey, withinBudget, type AdapterSettings } from './settings.js';
import { wavForm } from './vendor-adapter.js';
import { primaryLanguage } from './languages.js';
import { VENDOR_TABLE } from './vendor-table.js';

const VENDOR = 'OpenAI';

/** What one model accepts (openai-node `src/resources/audio/transcriptions.ts`, TranscriptionCreateParamsBase). */
export interface OpenAiModelRules {
  /** `verbose_json` is documented for whisper-1 (and is what Whisper servers return segments in); gpt-* models take `json`. */
  responseFormat: 'json' | 'verbose_json';
  /** `include[]=logprobs` only works with gpt-4o-transcribe, gpt-4o-mini-transcribe and its dated snapshots. */
  logprobs: boolean;
  /** gpt-4o-transcribe-diarize requires `chunking_strategy` for inputs over 30 s; we always send `auto`. */
  chunking: boolean;
  /** `prompt` (our keyterms) "is not supported when using gpt-4o-transcribe-diarize". */
  prompt: boolean;
}

/** The request rules of `model`; a name outside OpenAI's gpt-* family is treated as Whisper (whisper-1, self-hosted servers). */
export function openAiModelRules(model: string): OpenAiModelRules {
  if (/^gpt-4o-transcribe-diarize/.test(model)) return { responseFormat: 'json', logprobs: false, chunking: true, prompt: false };
  if (/^gpt-4o(-mini)?-transcribe(-\d{4}-\d{2}-\d{2})?$/.test(model)) return { responseFormat: 'json', logprobs: true, chunking: false, prompt: true };
  if (/^gpt-/.test(model)) return { responseFormat: 'json', logprobs: false, chunking: false, prompt: true };
  return { responseFormat: 'verbose_json', logprobs: false, chunking: false, prompt: true };
}

/**
 * OpenAI has no boosting list: its `prompt` is text the model continues from, and OpenAI's speech-to-text
 * guide spells rare words for it as a comma-separated list, which is what we send. Whisper reads only
 * the prompt's last 224 tokens, so with many terms the first ones may be dropped by the model.
 */
export function openAiPrompt(terms: readonly string[]): string {
  return terms.join(', ');
}

interface OpenAiTranscription {
  text?: unknown;
  /** `diarized_json`: `{type, id, speaker, start, end, text}` per segment. */
  segments?: { avg_logprob?: unknown; speaker?: unknown; start?: unknown; end?: unknown; text?: unknown }[];
  logprobs?: { logprob?: unknown }[];
}

/**
 * Confidence, derived because the API has no transcript-level field:
 * - `verbose_json` (whisper-1, most self-hosted servers): mean over segments of exp(avg_logprob), the
 *   segment's mean token probability;
 * - gpt-4o(-mini)-transcribe with `include[]=logprobs`: exp(mean token logprob), the geometric mean probability;
 * - otherwise null.
 */
export function openAiConfidence(body: OpenAiTranscription): number | null {
  const segs = (body.segments ?? []).map((s) => s.avg_logprob).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (segs.length) return confidenceOrNull(segs.reduce((a, v) => a + Math.exp(v), 0) / segs.length);
  const lps = (body.logprobs ?? []).map((t) => t.logprob).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (lps.length) return confidenceOrNull(Math.exp(lps.reduce((a, v) => a + v, 0) / lps.length));
  return null;
}

/** The segments of a `diarized_json` answer as speaker words (a segment's text stands for its words). */
export function openAiSpeakerSegments(body: OpenAiTranscription): SpeakerWord[] {
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return (body.segments ?? []).map((g) => ({ text: String(g.text ?? '').trim(), start: num(g.start), end: num(g.end), speaker: typeof g.speaker === 'string' && g.speaker ? g.speaker : null }));
}

/** Creates the adapter; `settings.path` defaults to `/v1/audio/transcriptions`. */
export function createOpenAiAdapter(s: AdapterSettings): SttAdapter {
  const model = s.model ?? 'whisper-1';
  const rules = openAiModelRules(model);
  return {
    adapter: 'openai',
    model,
    supportsKeyterms: rules.prompt,
    // Only gpt-4o-transcribe-diarize labels speakers, and only in `diarized_json` (DESIGN §16.3).
    supportsDiarization: rules.chunking,
    // A self-hosted server may need no key: only a configured but unset variable makes it not ready.
    check: () => (s.apiKeyEnv && !s.apiKey() ? { ok: false, detail: `${s.apiKeyEnv} is not set` } : { ok: true }),
    async transcribe(audio: SttAudio, opts: TranscribeOptions) {
      const key = s.apiKeyEnv ? requireKey(s, VENDOR) : undefined;
      checkLimits(audio, VENDOR_TABLE.openai.limits, VENDOR);
      const ctx = contextOf(s, VENDOR, opts.timing);
      const form = await wavForm(audio, 'file');
      form.append('model', model);
      const language = opts.language ?? s.language;
      if (language) form.append('language', primaryLanguage(language));
      const diarize = rules.chunking && opts.diarize === true;
      form.append('response_format', diarize ? 'diarized_json' : rules.responseFormat);
      if (rules.logprobs) form.append('include[]', 'logprobs');
      if (rules.chunking) form.append('chunking_strategy', 'auto');
      form.append('temperature', '0');
      if (rules.prompt && opts.keyterms?.length) form.append('prompt', openAiPrompt(opts.keyterms));
      const url = joinUrl(s.baseUrl, s.path ?? '/v1/audio/transcriptions');
      const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
      const body = await withinBudget(s, audio, VENDOR, opts.signal, (signal) => vendorJson<OpenAiTranscription>(ctx, url, { method: 'POST', headers, body: form, signal }));
      if (typeof body.text !== 'string') throw malformed(ctx, 'no text');
      const out = { transcript: body.text.trim(), confidence: diarize ? null : openAiConfidence(body) };
      return diarize ? { ...out, words: openAiSpeakerSegments(body) } : out;
    },
  };
}
