/**
 * Speechmatics batch API v2: `POST {base}/v2/jobs` (multipart `data_file` + `config` JSON), poll
 * `GET /v2/jobs/{id}` (`running` → `done` | `rejected`), then `GET /v2/jobs/{id}/transcript?format=json-v2`.
 */
import { SttError, type SttAdapter } from './types.js';
import { malformed, meanConfidence, pollJob, vendorJson } from './http.js';
import { joinUrl, primaryLanguage, type AdapterSettings } from './settings.js';
import { defineVendorAdapter, wavForm } from './vendor-adapter.js';

const VENDOR = 'Speechmatics';

interface JobDetails {
  job?: { status?: unknown; errors?: { message?: unknown }[] };
}

interface JsonV2 {
  results?: { type?: unknown; attaches_to?: unknown; is_eos?: unknown; alternatives?: { content?: unknown; confidence?: unknown }[] }[];
}

/**
 * Transcript from json-v2 `results`: words joined by spaces, punctuation glued to the previous word
 * (or the next one when it `attaches_to: next`). Confidence: mean of the words' top-alternative confidence.
 */
export function speechmaticsTranscript(body: JsonV2): { transcript: string; confidence: number | null } | undefined {
  if (!Array.isArray(body.results)) return undefined;
  let text = '';
  let glueNext = false;
  const confs: unknown[] = [];
  for (const r of body.results) {
    const alt = r.alternatives?.[0];
    if (!alt || typeof alt.content !== 'string') continue;
    if (r.type === 'punctuation') {
      if (r.attaches_to === 'next') {
        text += (text ? ' ' : '') + alt.content;
        glueNext = true;
      } else text += alt.content;
      continue;
    }
    confs.push(alt.confidence);
    text += (text && !glueNext ? ' ' : '') + alt.content;
    glueNext = false;
  }
  return { transcript: text.trim(), confidence: meanConfidence(confs) };
}

/** Creates the adapter; `model` is the `operating_point` (standard, enhanced) when set. */
export function createSpeechmaticsAdapter(s: AdapterSettings): SttAdapter {
  return defineVendorAdapter(s, { vendor: VENDOR, adapter: 'speechmatics' }, async (audio, { key, ctx, signal, language }) => {
    const auth = { authorization: `Bearer ${key}` };
    const transcription: Record<string, unknown> = { language: primaryLanguage(language ?? 'en') };
    if (s.model) transcription.operating_point = s.model;
    const form = wavForm(audio, 'data_file');
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
    return out;
  });
}
