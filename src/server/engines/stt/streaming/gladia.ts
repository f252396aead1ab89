/**
 * Gladia live v2, from gladiaio/sdk `packages/sdk-js/src/v2/live/session.ts` (0989d22) and
 * `generated-types.ts` (`LiveV2InitRequest`, `LiveV2TranscriptMessageData`, `LiveV2Utterance`) (read
 * 2026-11-24). Two steps: `POST {base}/v2/live` with header `x-gladia-key` and the audio description
 * (`encoding:"wav/pcm", bit_depth:16, sample_rate, channels:1, model?, language_config?,
 * messages_config:{receive_partial_transcripts:true, receive_final_transcripts:true}`) answers
 * `{id, url}`; the WebSocket is that `url` (its token is in it, no header). Audio as binary frames of
 * raw PCM; `{"type":"stop_recording"}` ends the recording and Gladia closes (1000) once its last results
 * and post-processing are out. `transcript` messages carry `data.utterance.text` with `data.is_final`
 * (word times in seconds); other messages (speech_start, post_* …) only show the stream is alive.
 */
import { vendorJson } from '../http.js';
import { contextOf, joinUrl, requireKey, type AdapterSettings } from '../settings.js';
import { SttError, type StreamEvent, type StreamingCapability, type StreamWord } from '../types.js';
import { MAX_VENDOR_MESSAGE_BYTES } from './bounds.js';
import { HANDSHAKE_TIMEOUT_MS, openVendorSocket } from './ws.js';

const VENDOR = 'Gladia';

interface Utterance {
  text?: unknown;
  words?: { word?: unknown; start?: unknown; end?: unknown }[];
}

function wordsOf(u: Utterance): StreamWord[] | undefined {
  if (!Array.isArray(u.words)) return undefined;
  const out: StreamWord[] = [];
  for (const w of u.words) {
    if (typeof w.word !== 'string' || typeof w.start !== 'number' || typeof w.end !== 'number') return undefined;
    out.push({ word: w.word.trim(), startMs: w.start * 1000, endMs: w.end * 1000 });
  }
  return out;
}

/** Events of one Gladia live message. */
export function parseGladiaMessage(message: unknown, at: number): StreamEvent[] {
  const m = message as { type?: unknown; error?: unknown; data?: { is_final?: unknown; utterance?: Utterance } };
  if (!m || typeof m !== 'object' || typeof m.type !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (no type)`);
  if (m.type === 'error' || (m.error !== undefined && m.error !== null)) throw new SttError('upstream_error', `${VENDOR} reported an error: ${JSON.stringify(m.error ?? m.data ?? null)}`);
  if (m.type !== 'transcript') return [{ type: 'message', at }];
  const u = m.data?.utterance;
  if (!u || typeof u.text !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (transcript without data.utterance.text)`);
  const words = wordsOf(u);
  return [{ type: m.data?.is_final === true ? 'final' : 'partial', text: u.text.trim(), ...(words ? { words } : {}), at }];
}

function closeError(code: number, reason: string): SttError | null {
  if (code === 1000) return null;
  return new SttError('upstream_error', `${VENDOR} closed the stream (code ${code}${reason ? `: ${reason}` : ''})`);
}

/** The body of `POST /v2/live`. */
export function gladiaInitBody(opts: { sampleRate: number; model: string | null; language?: string; keyterms?: string[] }): Record<string, unknown> {
  const lang = opts.language?.split(/[-_]/)[0]?.toLowerCase();
  return {
    encoding: 'wav/pcm',
    bit_depth: 16,
    sample_rate: opts.sampleRate,
    channels: 1,
    ...(opts.model ? { model: opts.model } : {}),
    ...(lang ? { language_config: { languages: [lang], code_switching: false } } : {}),
    ...(opts.keyterms?.length ? { realtime_processing: { custom_vocabulary: true, custom_vocabulary_config: { vocabulary: opts.keyterms } } } : {}),
    messages_config: { receive_partial_transcripts: true, receive_final_transcripts: true },
  };
}

/** Gladia's live capability (`streaming_model`, e.g. `solaria-1`; none: Gladia's default). */
export function createGladiaStreaming(s: AdapterSettings): StreamingCapability {
  const model = s.streamingModel ?? null;
  return {
    sampleRate: 16000,
    model,
    async open(options, onEvent) {
      const key = requireKey(s, VENDOR);
      const ctx = contextOf(s, VENDOR);
      const init = await vendorJson<{ id?: unknown; url?: unknown }>(ctx, joinUrl(s.baseUrl, '/v2/live'), {
        method: 'POST',
        headers: { 'x-gladia-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(gladiaInitBody({ sampleRate: options.sampleRate, model, language: options.language ?? s.language, keyterms: options.keyterms })),
        // The handshake's own time limit, and the stream's end (its deadline, a client gone) before it.
        signal: options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(HANDSHAKE_TIMEOUT_MS)]) : AbortSignal.timeout(HANDSHAKE_TIMEOUT_MS),
        maxBytes: MAX_VENDOR_MESSAGE_BYTES,
      });
      if (typeof init.url !== 'string' || !/^wss?:\/\//.test(init.url)) throw new SttError('upstream_error', `${VENDOR} returned a malformed response (no WebSocket url)`);
      return openVendorSocket(
        {
          ctx,
          url: init.url,
          endMessage: () => JSON.stringify({ type: 'stop_recording' }),
          parse: parseGladiaMessage,
          closeError,
          now: options.now,
          signal: options.signal,
        },
        onEvent,
      );
    },
  };
}
