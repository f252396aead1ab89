/**
 * AssemblyAI Universal-Streaming v3 (`wss://streaming.assemblyai.com/v3/ws`), from the Streaming API
 * reference and "Message Sequence" page on assemblyai.com/docs and AssemblyAI/assemblyai-node-sdk
 * `src/services/streaming/service.ts` and `src/utils/errors/streaming.ts` (read 2026-11-24): auth
 * `Authorization: {key}` on the handshake; query `sample_rate, encoding=pcm_s16le, speech_model,
 * format_turns=true, keyterms_prompt?` (a JSON list); audio as binary frames of raw PCM that must
 * each hold 50..1000 ms (error 3007 otherwise), so our 20 ms frames go out three at a time (60 ms) and
 * the tail is padded with silence to 50 ms; the session opens with `Begin`; `Turn` messages carry the
 * running transcript of the current turn (`end_of_turn:false` = partial); with `format_turns` the turn
 * ends with an unformatted then a formatted `end_of_turn:true` message, and the formatted one is the
 * final. `{"type":"Terminate"}` ends the session: in-flight turns, `Termination`, close 1000. Errors:
 * `{"error": ...}` messages and 4xxx/3xxx close codes (4001 not authorised, 3007 chunk duration, ...).
 * The 20..60 ms of coalescing is part of what is measured: it is what AssemblyAI's framing costs.
 */
import { contextOf, requireKey, type AdapterSettings } from '../settings.js';
import { SttError, type StreamEvent, type StreamingCapability, type StreamWord } from '../types.js';
import { openVendorSocket, wsBase } from './ws.js';

const VENDOR = 'AssemblyAI';
/** The public streaming origin (the batch API lives on api.assemblyai.com). */
export const ASSEMBLYAI_STREAMING_BASE = 'https://streaming.assemblyai.com';
const DEFAULT_MODEL = 'universal-streaming-english';
/** Frames per message: 3 × 20 ms = 60 ms, inside the 50..1000 ms AssemblyAI accepts. */
const FRAMES_PER_MESSAGE = 3;
const MIN_CHUNK_MS = 50;

/** Close codes AssemblyAI documents (the SDK's `StreamingErrorMessages`). */
const CLOSE_MESSAGES: Record<number, string> = {
  3005: 'Server error',
  3006: 'Input validation error',
  3007: 'Audio chunk duration violation',
  3008: 'Session expired: maximum session duration exceeded',
  3009: 'Too many concurrent sessions',
  4000: 'Sample rate must be a positive integer',
  4001: 'Not Authorized',
  4002: 'Insufficient funds',
  4029: 'Rate limited',
  4031: 'Session Timeout',
};

interface Turn {
  type: 'Turn';
  end_of_turn?: unknown;
  turn_is_formatted?: unknown;
  transcript?: unknown;
  words?: { text?: unknown; start?: unknown; end?: unknown }[];
}

function wordsOf(t: Turn): StreamWord[] | undefined {
  if (!Array.isArray(t.words)) return undefined;
  const out: StreamWord[] = [];
  for (const w of t.words) {
    if (typeof w.text !== 'string' || typeof w.start !== 'number' || typeof w.end !== 'number') return undefined;
    out.push({ word: w.text, startMs: w.start, endMs: w.end });
  }
  return out;
}

/** Events of one AssemblyAI message (after `Begin`). */
export function parseAssemblyAiMessage(message: unknown, at: number): StreamEvent[] {
  const m = message as { type?: unknown; error?: unknown };
  if (!m || typeof m !== 'object') throw new SttError('upstream_error', `${VENDOR} sent a malformed message`);
  if (m.error !== undefined) throw new SttError('upstream_error', `${VENDOR} reported an error: ${typeof m.error === 'string' ? m.error : JSON.stringify(m.error)}`);
  if (m.type !== 'Turn') {
    if (typeof m.type !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (no type)`);
    return [{ type: 'message', at }];
  }
  const t = message as Turn;
  if (typeof t.transcript !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (Turn without transcript)`);
  const final = t.end_of_turn === true && t.turn_is_formatted === true;
  const words = wordsOf(t);
  return [{ type: final ? 'final' : 'partial', text: t.transcript.trim(), ...(words ? { words } : {}), at }];
}

function closeError(code: number, reason: string, ended: boolean): SttError | null {
  if (code === 1000 && ended) return null;
  if (code === 1000) return null;
  const why = reason || CLOSE_MESSAGES[code] || '';
  if (code === 4001 || code === 1008) return new SttError('upstream_error', `${VENDOR} rejected the credentials (close ${code}${why ? `: ${why}` : ''})`);
  if (code === 4029 || code === 3009) return new SttError('rate_limited', `${VENDOR} rate limit exceeded (close ${code}${why ? `: ${why}` : ''})`);
  return new SttError('upstream_error', `${VENDOR} closed the stream (code ${code}${why ? `: ${why}` : ''})`);
}

/** The URL of a v3 stream. */
export function assemblyAiStreamUrl(base: string, model: string, opts: { sampleRate: number; keyterms?: string[] }): string {
  const q = new URLSearchParams({ sample_rate: String(opts.sampleRate), encoding: 'pcm_s16le', speech_model: model, format_turns: 'true' });
  if (opts.keyterms?.length) q.set('keyterms_prompt', JSON.stringify(opts.keyterms));
  return `${wsBase(base)}/v3/ws?${q}`;
}

/**
 * AssemblyAI's live capability. A binding's `base_url` sets the streaming origin too (tests, proxies);
 * without one it is streaming.assemblyai.com. v3 streams English by default; other languages need a
 * multilingual `streaming_model`.
 */
export function createAssemblyAiStreaming(s: AdapterSettings, opts: { customBase: boolean }): StreamingCapability {
  const model = s.streamingModel ?? DEFAULT_MODEL;
  const base = opts.customBase ? s.baseUrl : ASSEMBLYAI_STREAMING_BASE;
  return {
    sampleRate: 16000,
    model,
    open(options, onEvent) {
      const key = requireKey(s, VENDOR);
      const held: Buffer[] = [];
      const take = () => {
        const out = Buffer.concat(held);
        held.length = 0;
        return out;
      };
      const minBytes = (options.sampleRate * 2 * MIN_CHUNK_MS) / 1000;
      return openVendorSocket(
        {
          ctx: contextOf(s, VENDOR),
          url: assemblyAiStreamUrl(base, model, { sampleRate: options.sampleRate, keyterms: options.keyterms }),
          headers: { authorization: key },
          ready: (m) => {
            const msg = m as { type?: unknown; error?: unknown };
            if (msg.error !== undefined) throw new SttError('upstream_error', `${VENDOR} refused the stream: ${String(msg.error)}`);
            return msg.type === 'Begin';
          },
          frame: (pcm) => {
            held.push(Buffer.from(pcm));
            return held.length >= FRAMES_PER_MESSAGE ? take() : null;
          },
          flush: () => {
            if (!held.length) return null;
            const rest = take();
            // A last chunk under 50 ms would be refused: pad it with silence.
            return rest.length >= minBytes ? rest : Buffer.concat([rest, Buffer.alloc(minBytes - rest.length)]);
          },
          endMessage: () => JSON.stringify({ type: 'Terminate' }),
          lastMessage: (m) => (m as { type?: unknown }).type === 'Termination',
          parse: parseAssemblyAiMessage,
          closeError,
          now: options.now,
          signal: options.signal,
        },
        onEvent,
      );
    },
  };
}
