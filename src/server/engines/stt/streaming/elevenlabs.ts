/**
 * ElevenLabs Scribe realtime (`wss://api.elevenlabs.io/v1/speech-to-text/realtime`), from
 * elevenlabs/elevenlabs-js `src/wrapper/realtime/connection.ts` (0d55966: message types) and
 * `scribe.ts` (the query parameters; that stored version still names the path `realtime-beta`, the
 * current documentation and clients use `realtime` with `model_id=scribe_v2_realtime`) (read
 * 2026-11-24): auth header `xi-api-key`; query `model_id, audio_format=pcm_16000,
 * commit_strategy=manual, language_code?`; audio as JSON `{"message_type":"input_audio_chunk",
 * "audio_base_64","commit":false,"sample_rate"}`; the session opens with `session_started`;
 * `partial_transcript` and `final_transcript` carry the uncommitted text (it may still change /
 * it has settled), `committed_transcript` the committed segment (our final). The end is the SDK's:
 * a last chunk with `commit:true`, then, once `committed_transcript` is in, the client closes.
 * Errors are messages whose `message_type` names them (`auth_error`, `quota_exceeded`,
 * `rate_limited`, `input_error`, `invalid_request`, …) with an `error` text.
 */
import { contextOf, requireKey, type AdapterSettings } from '../settings.js';
import { SttError, type StreamEvent, type StreamingCapability } from '../types.js';
import { openVendorSocket, wsBase } from './ws.js';

const VENDOR = 'ElevenLabs';
const DEFAULT_MODEL = 'scribe_v2_realtime';
const ERROR_TYPES = new Set([
  'error', 'auth_error', 'quota_exceeded', 'commit_throttled', 'transcriber_error', 'unaccepted_terms', 'rate_limited', 'input_error',
  'invalid_request', 'queue_overflow', 'resource_exhausted', 'session_time_limit_exceeded', 'chunk_size_exceeded', 'insufficient_audio_activity',
]);

/** Events of one ElevenLabs realtime message (after `session_started`). */
export function parseElevenLabsMessage(message: unknown, at: number): StreamEvent[] {
  const m = message as { message_type?: unknown; text?: unknown; error?: unknown };
  if (!m || typeof m !== 'object' || typeof m.message_type !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (no message_type)`);
  const type = m.message_type;
  if (ERROR_TYPES.has(type)) {
    const text = `${type}${typeof m.error === 'string' ? `: ${m.error}` : ''}`;
    if (type === 'auth_error') throw new SttError('upstream_error', `${VENDOR} rejected the credentials (${text})`);
    if (type === 'rate_limited' || type === 'quota_exceeded' || type === 'commit_throttled') throw new SttError('rate_limited', `${VENDOR} rate limit exceeded (${text})`);
    throw new SttError('upstream_error', `${VENDOR} reported an error: ${text}`);
  }
  if (type !== 'partial_transcript' && type !== 'final_transcript' && type !== 'committed_transcript') return [{ type: 'message', at }];
  if (typeof m.text !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (${type} without text)`);
  return [{ type: type === 'committed_transcript' ? 'final' : 'partial', text: m.text.trim(), at }];
}

function closeError(code: number, reason: string): SttError | null {
  if (code === 1000) return null;
  return new SttError('upstream_error', `${VENDOR} closed the stream (code ${code}${reason ? `: ${reason}` : ''})`);
}

/** The URL of a realtime session. */
export function elevenLabsStreamUrl(base: string, model: string, opts: { sampleRate: number; language?: string }): string {
  const q = new URLSearchParams({ model_id: model, audio_format: `pcm_${opts.sampleRate}`, commit_strategy: 'manual' });
  if (opts.language) q.set('language_code', opts.language);
  return `${wsBase(base)}/v1/speech-to-text/realtime?${q}`;
}

/** ElevenLabs' live capability (`streaming_model`, default `scribe_v2_realtime`; the batch `model` is a different family). */
export function createElevenLabsStreaming(s: AdapterSettings): StreamingCapability {
  const model = s.streamingModel ?? DEFAULT_MODEL;
  return {
    sampleRate: 16000,
    model,
    open(options, onEvent) {
      const key = requireKey(s, VENDOR);
      const language = (options.language ?? s.language)?.split(/[-_]/)[0]?.toLowerCase();
      const chunk = (pcm: Buffer, commit: boolean) => JSON.stringify({ message_type: 'input_audio_chunk', audio_base_64: pcm.toString('base64'), commit, sample_rate: options.sampleRate });
      return openVendorSocket(
        {
          ctx: contextOf(s, VENDOR),
          url: elevenLabsStreamUrl(s.baseUrl, model, { sampleRate: options.sampleRate, language }),
          headers: { 'xi-api-key': key },
          ready: (m) => {
            const msg = m as { message_type?: unknown; error?: unknown };
            if (typeof msg.message_type === 'string' && ERROR_TYPES.has(msg.message_type)) parseElevenLabsMessage(m, 0);
            return msg.message_type === 'session_started';
          },
          frame: (pcm) => chunk(pcm, false),
          endMessage: () => chunk(Buffer.alloc(0), true),
          lastMessage: (m) => (m as { message_type?: unknown }).message_type === 'committed_transcript',
          parse: parseElevenLabsMessage,
          closeError,
          now: options.now,
          signal: options.signal,
        },
        onEvent,
      );
    },
  };
}
