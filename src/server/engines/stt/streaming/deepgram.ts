/**
 * Deepgram live streaming (`wss://api.deepgram.com/v1/listen`), from developers.deepgram.com (Streaming
 * API reference, Close Stream, Keep Alive pages) and deepgram/deepgram-js-sdk `LiveTranscriptionEvent`
 * and `LiveSchema` (read 2026-11-24): auth `Authorization: Token {key}` on the handshake; query
 * `model, encoding=linear16, sample_rate, channels=1, interim_results=true, punctuate, smart_format,
 * language?, keyterm*`; audio as binary frames of raw PCM; `{"type":"CloseStream"}` (a text frame) ends
 * the stream: Deepgram flushes its last results, sends `Metadata`, then closes (1000). `Results` with
 * `is_final:false` are interim (the open segment, repeated whole), `is_final:true` settle it; word
 * times are seconds from the stream's start. Failures: a refused handshake is an HTTP status (401,
 * 400 for bad parameters); later, close 1008 (DATA-0000, audio it cannot decode) or 1011 (NET-0000/
 * NET-0001, timeouts), sometimes after a `{"type":"Error"}` message. No KeepAlive is needed: audio
 * flows without pause until CloseStream.
 */
import { contextOf, requireKey, type AdapterSettings } from '../settings.js';
import { SttError, type StreamEvent, type StreamingCapability, type StreamWord } from '../types.js';
import { openVendorSocket, wsBase } from './ws.js';

const VENDOR = 'Deepgram';

interface DeepgramResults {
  type: 'Results';
  is_final?: boolean;
  channel?: { alternatives?: { transcript?: unknown; words?: { word?: unknown; punctuated_word?: unknown; start?: unknown; end?: unknown }[] }[] };
}

/** The words of a `Results` message with their times in ms; undefined when Deepgram gave none. */
function wordsOf(alt: NonNullable<NonNullable<DeepgramResults['channel']>['alternatives']>[number]): StreamWord[] | undefined {
  if (!Array.isArray(alt.words)) return undefined;
  const out: StreamWord[] = [];
  for (const w of alt.words) {
    const word = typeof w.punctuated_word === 'string' ? w.punctuated_word : w.word;
    if (typeof word !== 'string' || typeof w.start !== 'number' || typeof w.end !== 'number') return undefined;
    out.push({ word, startMs: w.start * 1000, endMs: w.end * 1000 });
  }
  return out;
}

/** Events of one Deepgram message. */
export function parseDeepgramMessage(message: unknown, at: number): StreamEvent[] {
  const m = message as { type?: unknown; description?: unknown; message?: unknown; variant?: unknown };
  if (!m || typeof m !== 'object' || typeof m.type !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (no type)`);
  if (m.type === 'Error') {
    const text = [m.description, m.message].filter((x) => typeof x === 'string' && x).join(': ');
    throw new SttError('upstream_error', `${VENDOR} reported an error: ${text || 'no description'}`);
  }
  if (m.type !== 'Results') return [{ type: 'message', at }];
  const r = message as DeepgramResults;
  const alt = r.channel?.alternatives?.[0];
  if (!alt || typeof alt.transcript !== 'string') throw new SttError('upstream_error', `${VENDOR} sent a malformed message (no channel.alternatives[0].transcript)`);
  const words = wordsOf(alt);
  return [{ type: r.is_final ? 'final' : 'partial', text: alt.transcript.trim(), ...(words ? { words } : {}), at }];
}

/** Error of a Deepgram close code; 1000 is the normal end after CloseStream. */
function closeError(code: number, reason: string, ended: boolean): SttError | null {
  if (code === 1000 && ended) return null;
  const why = reason ? `: ${reason}` : '';
  if (code === 1008) return new SttError('unsupported_audio', `${VENDOR} could not decode the audio (close 1008${why})`);
  if (code === 1011) return new SttError('upstream_error', `${VENDOR} ended the stream (close 1011${why})`);
  if (code === 1000) return null; // a normal close before CloseStream: reported as an early close
  return new SttError('upstream_error', `${VENDOR} closed the stream (code ${code}${why})`);
}

/** The URL of a live stream with these options. */
export function deepgramStreamUrl(baseUrl: string, model: string, opts: { sampleRate: number; language?: string; keyterms?: string[] }): string {
  const q = new URLSearchParams({
    model,
    encoding: 'linear16',
    sample_rate: String(opts.sampleRate),
    channels: '1',
    interim_results: 'true',
    punctuate: 'true',
    smart_format: 'true',
  });
  if (opts.language) q.set('language', opts.language);
  for (const k of opts.keyterms ?? []) q.append('keyterm', k);
  return `${wsBase(baseUrl)}/v1/listen?${q}`;
}

/** Deepgram's live capability of a binding. */
export function createDeepgramStreaming(s: AdapterSettings): StreamingCapability {
  const model = s.streamingModel ?? s.model ?? 'nova-3';
  return {
    sampleRate: 16000,
    model,
    open(opts, onEvent) {
      const key = requireKey(s, VENDOR);
      return openVendorSocket(
        {
          ctx: contextOf(s, VENDOR),
          url: deepgramStreamUrl(s.baseUrl, model, { sampleRate: opts.sampleRate, language: opts.language ?? s.language, keyterms: opts.keyterms }),
          headers: { authorization: `Token ${key}` },
          endMessage: () => JSON.stringify({ type: 'CloseStream' }),
          parse: parseDeepgramMessage,
          closeError,
          now: opts.now,
          signal: opts.signal,
        },
        onEvent,
      );
    },
  };
}
