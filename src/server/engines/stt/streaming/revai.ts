/**
 * Rev.ai streaming (`wss://api.rev.ai/speechtotext/v1/stream`), from revdotcom/revai-node-sdk
 * `src/streaming-client.ts` (01fec52), `src/models/streaming/StreamingResponses.ts` and `AudioConfig`
 * (read 2026-11-24): the key goes as the `access_token` query parameter (the SDK's way; kept out of
 * every message), the audio is described by `content_type=audio/x-raw;layout=interleaved;rate=16000;
 * format=S16LE;channels=1`; the stream opens with `{"type":"connected","id"}`; hypotheses are
 * `{"type":"partial"|"final", ts, end_ts, elements:[{type:"text"|"punct", value, ts?, end_ts?}]}` (a
 * final settles a segment, partials are the open one); the text frame `EOS` ends the stream and Rev.ai
 * closes with 1000 after the last final. Close codes 4001 (unauthorised), 4002 (bad request), 4003
 * (insufficient credits), 4013 (too many requests).
 */
import { contextOf, requireKey, type AdapterSettings } from '../settings.js';
import { SttError, type StreamEvent, type StreamingCapability, type StreamWord } from '../types.js';
import { openVendorSocket, wsBase } from './ws.js';

const VENDOR = 'Rev.ai';

interface Element {
  type?: unknown;
  value?: unknown;
  ts?: unknown;
  end_ts?: unknown;
}

function textOf(elements: Element[]): string {
  return elements
    .map((e) => (typeof e.value === 'string' ? e.value : ''))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

function wordsOf(elements: Element[]): StreamWord[] | undefined {
  const out: StreamWord[] = [];
  for (const e of elements) {
    if (e.type !== 'text') continue;
    if (typeof e.value !== 'string' || typeof e.ts !== 'number' || typeof e.end_ts !== 'number') return undefined;
    out.push({ word: e.value, startMs: e.ts * 1000, endMs: e.end_ts * 1000 });
  }
  return out;
}

/** Events of one Rev.ai message (after `connected`). */
export function parseRevAiMessage(message: unknown, at: number): StreamEvent[] {
  const m = message as { type?: unknown; elements?: unknown };
  if (!m || typeof m !== 'object' || typeof m.type !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (no type)`);
  if (m.type !== 'partial' && m.type !== 'final') return [{ type: 'message', at }];
  if (!Array.isArray(m.elements)) throw new SttError('upstream_error', `${VENDOR} sent a malformed message (${m.type} without elements)`);
  const elements = m.elements as Element[];
  const words = wordsOf(elements);
  return [{ type: m.type, text: textOf(elements), ...(words ? { words } : {}), at }];
}

const CLOSE_MESSAGES: Record<number, string> = { 4001: 'Unauthorized', 4002: 'Bad request', 4003: 'Insufficient credits', 4013: 'Too many requests' };

function closeError(code: number, reason: string): SttError | null {
  if (code === 1000) return null;
  const why = reason || CLOSE_MESSAGES[code] || '';
  const tail = `(close ${code}${why ? `: ${why}` : ''})`;
  if (code === 4001) return new SttError('upstream_error', `${VENDOR} rejected the credentials ${tail}`);
  if (code === 4013) return new SttError('rate_limited', `${VENDOR} rate limit exceeded ${tail}`);
  return new SttError('upstream_error', `${VENDOR} closed the stream ${tail}`);
}

/** The URL of a stream (the key in `access_token`, as the SDK sends it). */
export function revAiStreamUrl(base: string, key: string, opts: { sampleRate: number; language?: string; model: string | null }): string {
  let url = `${wsBase(base)}/speechtotext/v1/stream?access_token=${encodeURIComponent(key)}&content_type=audio/x-raw;layout=interleaved;rate=${opts.sampleRate};format=S16LE;channels=1`;
  if (opts.model) url += `&transcriber=${encodeURIComponent(opts.model)}`;
  if (opts.language) url += `&language=${encodeURIComponent(opts.language)}`;
  return url;
}

/** Rev.ai's live capability (`streaming_model`, else `model`, is its `transcriber`). */
export function createRevAiStreaming(s: AdapterSettings): StreamingCapability {
  const model = s.streamingModel ?? s.model;
  return {
    sampleRate: 16000,
    model,
    open(options, onEvent) {
      const key = requireKey(s, VENDOR);
      const language = (options.language ?? s.language)?.split(/[-_]/)[0]?.toLowerCase();
      return openVendorSocket(
        {
          ctx: contextOf(s, VENDOR),
          url: revAiStreamUrl(s.baseUrl, key, { sampleRate: options.sampleRate, language, model }),
          ready: (m) => (m as { type?: unknown }).type === 'connected',
          endMessage: () => 'EOS',
          parse: parseRevAiMessage,
          closeError,
          now: options.now,
          signal: options.signal,
        },
        onEvent,
      );
    },
  };
}
