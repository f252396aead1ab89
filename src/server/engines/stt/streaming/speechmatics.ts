/**
 * Speechmatics real-time (`wss://eu2.rt.speechmatics.com/v2`), from speechmatics/speechmatics-js-sdk
 * `packages/real-time-client/src/client.ts` (00f197e) and the Realtime API reference on
 * docs.speechmatics.com (read 2026-11-24): auth `Authorization: Bearer {key}` on the handshake (the SDK's
 * browser path uses a `jwt` query parameter instead); the first message is `StartRecognition` with
 * `audio_format {type:"raw", encoding:"pcm_s16le", sample_rate}` and `transcription_config {language,
 * enable_partials:true, model?}`, answered by `RecognitionStarted`; audio as binary frames (each acked
 * by `AudioAdded` with its `seq_no`); `AddPartialTranscript` carries the not-yet-final tail and
 * `AddTranscript` the words that became final (times in seconds); `{"message":"EndOfStream",
 * "last_seq_no":N}` ends the stream, answered by `EndOfTranscript`, after which the client closes.
 * Errors: `{"message":"Error", type, reason}`; `Warning` and `Info` only show the stream is alive.
 */
import { contextOf, requireKey, type AdapterSettings } from '../settings.js';
import { SttError, type StreamEvent, type StreamingCapability, type StreamWord } from '../types.js';
import { openVendorSocket, wsBase } from './ws.js';

const VENDOR = 'Speechmatics';
/** The SDK's default real-time endpoint (the batch API is on asr.api.speechmatics.com). */
export const SPEECHMATICS_RT_BASE = 'https://eu2.rt.speechmatics.com';

interface SmResult {
  type?: unknown;
  start_time?: unknown;
  end_time?: unknown;
  attaches_to?: unknown;
  alternatives?: { content?: unknown }[];
}

/** Words of a transcript message with times in ms (punctuation is not a word). */
function wordsOf(results: SmResult[]): StreamWord[] | undefined {
  const out: StreamWord[] = [];
  for (const r of results) {
    const content = r.alternatives?.[0]?.content;
    if (typeof content !== 'string' || typeof r.start_time !== 'number' || typeof r.end_time !== 'number') return undefined;
    if (r.type === 'word') out.push({ word: content, startMs: r.start_time * 1000, endMs: r.end_time * 1000 });
  }
  return out;
}

/** Text of a transcript message: its `metadata.transcript`, else the results joined (punctuation attached). */
function textOf(m: { metadata?: { transcript?: unknown }; results?: SmResult[] }): string {
  if (typeof m.metadata?.transcript === 'string') return m.metadata.transcript.trim();
  let s = '';
  for (const r of m.results ?? []) {
    const c = r.alternatives?.[0]?.content;
    if (typeof c !== 'string') continue;
    s += r.type === 'punctuation' || r.attaches_to === 'previous' ? c : ` ${c}`;
  }
  return s.trim();
}

/** Events of one Speechmatics message (after `RecognitionStarted`). */
export function parseSpeechmaticsMessage(message: unknown, at: number): StreamEvent[] {
  const m = message as { message?: unknown; type?: unknown; reason?: unknown; results?: unknown; metadata?: { transcript?: unknown } };
  if (!m || typeof m !== 'object' || typeof m.message !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (no message type)`);
  if (m.message === 'Error') throw new SttError('upstream_error', `${VENDOR} reported an error: ${String(m.type ?? 'error')}${typeof m.reason === 'string' ? `: ${m.reason}` : ''}`);
  if (m.message !== 'AddTranscript' && m.message !== 'AddPartialTranscript') return [{ type: 'message', at }];
  if (!Array.isArray(m.results)) throw new SttError('upstream_error', `${VENDOR} sent a malformed message (${m.message} without results)`);
  const results = m.results as SmResult[];
  const words = wordsOf(results);
  return [{ type: m.message === 'AddTranscript' ? 'final' : 'partial', text: textOf({ metadata: m.metadata, results }), ...(words ? { words } : {}), at }];
}

function closeError(code: number, reason: string, ended: boolean): SttError | null {
  if (code === 1000) return null;
  void ended;
  if (code === 4001 || code === 1008) return new SttError('upstream_error', `${VENDOR} rejected the credentials (close ${code}${reason ? `: ${reason}` : ''})`);
  if (code === 4005 || code === 4013) return new SttError('rate_limited', `${VENDOR} rate limit exceeded (close ${code}${reason ? `: ${reason}` : ''})`);
  return new SttError('upstream_error', `${VENDOR} closed the stream (code ${code}${reason ? `: ${reason}` : ''})`);
}

/** The `StartRecognition` message of a stream. */
export function speechmaticsStart(opts: { sampleRate: number; language: string; model: string | null; keyterms?: string[] }): Record<string, unknown> {
  return {
    message: 'StartRecognition',
    audio_format: { type: 'raw', encoding: 'pcm_s16le', sample_rate: opts.sampleRate },
    transcription_config: {
      language: opts.language,
      enable_partials: true,
      ...(opts.model ? { model: opts.model } : {}),
      ...(opts.keyterms?.length ? { additional_vocab: opts.keyterms.map((content) => ({ content })) } : {}),
    },
  };
}

/** Speechmatics' live capability; `base_url` sets the real-time origin (`/v2` appended). */
export function createSpeechmaticsStreaming(s: AdapterSettings, opts: { customBase: boolean }): StreamingCapability {
  const model = s.streamingModel ?? s.model;
  const base = opts.customBase ? s.baseUrl : SPEECHMATICS_RT_BASE;
  return {
    sampleRate: 16000,
    model,
    open(options, onEvent) {
      const key = requireKey(s, VENDOR);
      let frames = 0;
      // Speechmatics needs a language; its codes are ISO 639-1 (`en`), so a region is dropped.
      const language = (options.language ?? s.language ?? 'en').split(/[-_]/)[0]!.toLowerCase();
      return openVendorSocket(
        {
          ctx: contextOf(s, VENDOR),
          url: `${wsBase(base)}/v2`,
          headers: { authorization: `Bearer ${key}` },
          hello: JSON.stringify(speechmaticsStart({ sampleRate: options.sampleRate, language, model, keyterms: options.keyterms })),
          ready: (m) => {
            const msg = m as { message?: unknown; type?: unknown; reason?: unknown };
            if (msg.message === 'Error') throw new SttError('upstream_error', `${VENDOR} refused the stream: ${String(msg.type)}${typeof msg.reason === 'string' ? `: ${msg.reason}` : ''}`);
            return msg.message === 'RecognitionStarted';
          },
          frame: (pcm) => {
            frames++;
            return pcm;
          },
          endMessage: () => JSON.stringify({ message: 'EndOfStream', last_seq_no: frames }),
          lastMessage: (m) => (m as { message?: unknown }).message === 'EndOfTranscript',
          parse: parseSpeechmaticsMessage,
          closeError,
          now: options.now,
          signal: options.signal,
        },
        onEvent,
      );
    },
  };
}
