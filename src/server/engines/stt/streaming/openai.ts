/**
 * OpenAI Realtime transcription (`wss://api.openai.com/v1/realtime?intent=transcription`), from
 * openai/openai-node's beta realtime types (`ConversationItemInputAudioTranscriptionDeltaEvent`,
 * `…CompletedEvent`, `TranscriptionSessionUpdate`, `InputAudioBufferCommittedEvent`, `ErrorEvent`) and
 * the Realtime transcription guide on platform.openai.com (read 2026-11-24): auth `Authorization:
 * Bearer {key}` with `OpenAI-Beta: realtime=v1`; the first message is `transcription_session.update`
 * with `input_audio_format:"pcm16"` (24 kHz mono), `input_audio_transcription:{model, language?, prompt?}`
 * and `turn_detection:{type:"server_vad"}`; audio goes as `{"type":"input_audio_buffer.append","audio":
 * base64}`; the server commits a turn at each pause (`input_audio_buffer.committed {item_id}`) and
 * streams its text as `conversation.item.input_audio_transcription.delta` (partials, accumulated per
 * item) then `.completed {transcript}` (the final). To end we commit what is left
 * (`input_audio_buffer.commit`; an empty buffer answers the benign error `input_audio_buffer_commit_empty`)
 * and close once every committed item has completed (or failed). Errors: `{"type":"error","error":{…}}`.
 */
import { contextOf, requireKey, type AdapterSettings } from '../settings.js';
import { SttError, type StreamEvent, type StreamingCapability } from '../types.js';
import { openVendorSocket, wsBase } from './ws.js';

const VENDOR = 'OpenAI';
/** `pcm16` in the Realtime API is 24 kHz mono little-endian. */
const RATE = 24000;

/** One session's reading of the server's events: partial text per item, and what is still pending. */
function sessionParser() {
  const text = new Map<string, string>();
  const pending = new Set<string>();
  let commitAnswered = false;
  let ended = false;
  const parse = (message: unknown, at: number): StreamEvent[] => {
    const m = message as { type?: unknown; item_id?: unknown; delta?: unknown; transcript?: unknown; error?: { message?: unknown; code?: unknown; type?: unknown } };
    if (!m || typeof m !== 'object' || typeof m.type !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (no type)`);
    const id = typeof m.item_id === 'string' ? m.item_id : '';
    switch (m.type) {
      case 'error': {
        if (ended && m.error?.code === 'input_audio_buffer_commit_empty') {
          commitAnswered = true;
          return [{ type: 'message', at }];
        }
        const why = typeof m.error?.message === 'string' ? m.error.message : String(m.error?.code ?? 'unknown error');
        throw new SttError('upstream_error', `${VENDOR} reported an error: ${why}`);
      }
      case 'input_audio_buffer.committed':
        pending.add(id);
        if (ended) commitAnswered = true;
        return [{ type: 'message', at }];
      case 'conversation.item.input_audio_transcription.delta': {
        if (typeof m.delta !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (delta without text)`);
        const t = (text.get(id) ?? '') + m.delta;
        text.set(id, t);
        return [{ type: 'partial', text: t.trim(), at }];
      }
      case 'conversation.item.input_audio_transcription.completed':
        if (typeof m.transcript !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (completed without transcript)`);
        pending.delete(id);
        text.delete(id);
        return [{ type: 'final', text: m.transcript.trim(), at }];
      case 'conversation.item.input_audio_transcription.failed':
        pending.delete(id);
        return [{ type: 'message', at }];
      default:
        return [{ type: 'message', at }];
    }
  };
  return {
    parse,
    end: () => {
      ended = true;
    },
    /** Everything is in: our last commit answered and every committed turn transcribed. */
    done: () => ended && commitAnswered && pending.size === 0,
  };
}

function closeError(code: number, reason: string): SttError | null {
  if (code === 1000) return null;
  return new SttError('upstream_error', `${VENDOR} closed the stream (code ${code}${reason ? `: ${reason}` : ''})`);
}

/** The `transcription_session.update` message of a stream. */
export function openAiSessionUpdate(model: string, opts: { language?: string; keyterms?: string[] }): Record<string, unknown> {
  return {
    type: 'transcription_session.update',
    session: {
      input_audio_format: 'pcm16',
      input_audio_transcription: {
        model,
        ...(opts.language ? { language: opts.language } : {}),
        ...(opts.keyterms?.length ? { prompt: opts.keyterms.join(', ') } : {}),
      },
      turn_detection: { type: 'server_vad' },
    },
  };
}

/**
 * OpenAI's live capability, only for a binding that names a `streaming_model` (e.g. `gpt-4o-transcribe`):
 * the batch `whisper-1` does not stream, and OpenAI-compatible servers rarely speak the Realtime API.
 */
export function createOpenAiStreaming(s: AdapterSettings): StreamingCapability | undefined {
  if (!s.streamingModel) return undefined;
  const model = s.streamingModel;
  return {
    sampleRate: RATE,
    model,
    open(options, onEvent) {
      const key = requireKey(s, VENDOR);
      const language = (options.language ?? s.language)?.split(/[-_]/)[0]?.toLowerCase();
      const session = sessionParser();
      return openVendorSocket(
        {
          ctx: contextOf(s, VENDOR),
          url: `${wsBase(s.baseUrl)}/v1/realtime?intent=transcription`,
          headers: { authorization: `Bearer ${key}`, 'openai-beta': 'realtime=v1' },
          hello: JSON.stringify(openAiSessionUpdate(model, { language, keyterms: options.keyterms })),
          ready: (m) => {
            const msg = m as { type?: unknown; error?: { message?: unknown } };
            if (msg.type === 'error') throw new SttError('upstream_error', `${VENDOR} refused the session: ${String(msg.error?.message ?? 'error')}`);
            return msg.type === 'transcription_session.updated';
          },
          frame: (pcm) => JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') }),
          endMessage: () => {
            session.end();
            return JSON.stringify({ type: 'input_audio_buffer.commit' });
          },
          lastMessage: () => session.done(),
          parse: session.parse,
          closeError,
          now: options.now,
          signal: options.signal,
        },
        onEvent,
      );
    },
  };
}
