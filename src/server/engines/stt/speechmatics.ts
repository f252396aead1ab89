/**
 * Speechmatics batch API v2: `POST {base}/v2/jobs` (multipart `data_file` + `config` JSON), poll
 * `GET /v2/jobs/{id}` (`running` → `done` | `rejected`), then `GET /v2/jobs/{id}/transcript?format=json-v2`.
 */
import { SttError, type SpeakerWord, type SttAdapter } from './types.js';
import { malformed, meanConfidence, pollJob, vendorJson } from './http.js';
import { joinUrl, type AdapterSettings } from './settings.js';
import { primaryLanguage } from './languages.js';
import { defineVendorAdapter, wavForm } from './vendor-adapter.js';

const VENDOR = 'Speechmatics';

interface JobDetails {
  job?: { status?: unknown; errors?: { message?: unknown }[] };
}

interface JsonV2 {
  results?: {
    type?: unknown;
    attaches_to?: unknown;
    is_eos?: unknown;
    start_time?: unknown;
    end_time?: unknown;
    alternatives?: { content?: unknown; confidence?: unknown; speaker?: unknown }[];
  }[];
}

/** Which sides of a punctuation mark lose the word delimiter, by its `attaches_to` (default `previous`). */
const GLUE: Record<string, { before: boolean; after: boolean }> = {
  previous: { before: true, after: false },
  next: { before: false, after: true },
  both: { before: true, after: true },
  none: { before: false, after: false },
};

/**
 * Transcript from json-v2 `results`: words joined by spaces, punctuation attached as its `attaches_to`
 * says (`both`: a hyphen in `well-known`). Confidence: mean of the words' top-alternative confidence.
 */
export function speechmaticsTranscript(body: JsonV2): { transcript: string; confidence: number | null } | undefined {
  if (!Array.isArray(body.results)) return undefined;
  let text = '';
  let glueNext = false;
  const confs: unknown[] = [];
  for (const r of body.results) {
    const alt = r.alternatives?.[0];
    if (!alt || typeof alt.content !== 'string') continue;
    const glue = r.type === 'punctuation' ? (GLUE[String(r.attaches_to)] ?? GLUE.previous!) : { before: false, after: false };
    if (r.type !== 'punctuation') confs.push(alt.confidence);
    text += (text && !glue.before && !glueNext ? ' ' : '') + alt.content;
    glueNext = glue.after;
  }
  return { transcript: text.trim(), confidence: meanConfidence(confs) };
}

/**
 * The words of a json-v2 transcript made with `diarization: "speaker"`: each `word` result's top
 * alternative carries `speaker` (`S1`, `S2`… in order of appearance; `UU` when no speaker could be
 * told, read as no label) and the result its `start_time`/`end_time` in seconds. Punctuation is left out.
 */
export function speechmaticsSpeakerWords(body: JsonV2): SpeakerWord[] {
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return (body.results ?? [])
    .filter((r) => r.type === 'word' && typeof r.alternatives?.[0]?.content === 'string')
    .map((r) => {
      const alt = r.alternatives![0]!;
      const speaker = typeof alt.speaker === 'string' && alt.speaker && alt.speaker !== 'UU' ? alt.speaker : null;
      return { text: String(alt.content), start: num(r.start_time), end: num(r.end_time), speaker };
    });
}

/** Creates the adapter; `model` is `transcription_config.model` (standard, enhanced, melia-1), which replaced `operating_point`. */
export function createSpeechmaticsAdapter(s: AdapterSettings): SttAdapter {
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'speechmatics', supportsDiarization: true }, async (audio, { key, ctx, signal, language, keyterms, diarize }) => {
    const auth = { authorization: `Bearer ${key}` };
    const transcription: Record<string, unknown> = { language: primaryLanguage(language ?? 'en') };
    if (s.model) transcription.model = s.model;
    // Custom dictionary: additional_vocab [{content, sounds_like?}] (<= 1000 recommended).
    if (keyterms) transcription.additional_vocab = keyterms.map((content) => ({ content }));
    // Batch speaker diarization (docs.speechmatics.com/speech-to-text/batch/batch-diarization): off by default.
    if (diarize) transcription.diarization = 'speaker';
    const form = await wavForm(audio, 'data_file');
    form.append('config', JSON.stringify({ type: 'transcription', transcription_config: transcription }));
    const created = await vendorJson<{ id?: unknown }>(ctx, joinUrl(s.baseUrl, '/v2/jobs'), { method: 'POST', headers: auth, body: form, signal });
    if (typeof created.id !== 'string') throw malformed(ctx, 'no job id');
    const jobUrl = joinUrl(s.baseUrl, `/v2/jobs/${encodeURIComponent(created.id)}`);
    const done = await pollJob<JobDetails>(ctx, jobUrl, {
      headers: auth,
      signal,
      intervalMs: s.pollIntervalMs,
      finished: (d) => {
        const status = d.job?.status;
        if (status === undefined) throw malformed(ctx, 'no job.status');
        return status !== 'running';
      },
    });
    if (done.job?.status !== 'done') {
      const reason = (done.job?.errors ?? []).map((e) => e.message).filter((m) => typeof m === 'string').join('; ');
      throw new SttError('upstream_error', `${VENDOR} job ${String(done.job?.status)}${reason ? `: ${reason}` : ''}`);
    }
    const body = await vendorJson<JsonV2>(ctx, `${jobUrl}/transcript?format=json-v2`, { headers: auth, signal });
    const out = speechmaticsTranscript(body);
    if (!out) throw malformed(ctx, 'no results');
    return diarize ? { ...out, words: speechmaticsSpeakerWords(body) } : out;
  });
}
