/**
 * The WebSocket plumbing every live vendor shares (on `ws`): handshake failures mapped like HTTP errors,
 * receipt times read before any parsing, a vendor message that cannot be parsed or a close the vendor
 * did not announce turned into one `error` event, then `close`. A message over 4 MB ends the stream
 * (`upstream_error`, DESIGN §17.5): `ws` stops reading it at that size, so it is never held whole. A vendor
 * module only says what its URL, frames and messages look like.
 */
import { performance } from 'node:perf_hooks';
import type { RawData } from 'ws';
import { failure, scrub, type VendorContext } from '../http.js';
import { SttError, type StreamEvent, type SttStream } from '../types.js';
import { MAX_VENDOR_MESSAGE_BYTES } from './bounds.js';

/** How long a handshake may take before it counts as a failure to reach the vendor. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** The streaming origin of a binding's `base_url`: `http`→`ws`, `https`→`wss`, path kept. */
export function wsBase(baseUrl: string): string {
  return baseUrl.replace(/^http(s?):\/\//i, (_m, s: string) => `ws${s}://`).replace(/\/+$/, '');
}

/** What differs between live vendors. */
export interface VendorSocketSpec {
  ctx: VendorContext;
  url: string;
  headers?: Record<string, string>;
  /** Sent once the socket is open, before `open` resolves (a configuration message). */
  hello?: string;
  /** Answers the vendor's acknowledgement of `hello`: true once the stream may start (default: at open). */
  ready?: (message: unknown) => boolean;
  /** One audio frame as the vendor wants it (default: the PCM as a binary frame); null: nothing to send yet. */
  frame?: (pcm: Buffer) => string | Buffer | null;
  /** Audio still held by `frame`, sent before the end message. */
  flush?: () => string | Buffer | null;
  /** The message that ends the stream as the vendor documents, or null to close the socket ourselves. */
  endMessage: () => string | null;
  /** The vendor's "all results sent" message, after which the client closes (as the vendor's SDK does). */
  lastMessage?: (message: unknown) => boolean;
  /** Events of one parsed text message; throw an `SttError` for a vendor error message. */
  parse: (message: unknown, at: number) => StreamEvent[];
  /** Error of a close with `code` (null: a normal end). */
  closeError: (code: number, reason: string, ended: boolean) => SttError | null;
  now?: () => number;
  signal?: AbortSignal;
}

/** Opens the vendor's socket; resolves once the vendor accepted the stream. */
export async function openVendorSocket(spec: VendorSocketSpec, onEvent: (e: StreamEvent) => void): Promise<SttStream> {
  // `ws` loads with the first stream: a server that never streams never holds it.
  const { default: WebSocket } = await import('ws');
  const now = spec.now ?? (() => performance.now());
  const { ctx } = spec;
  return new Promise<SttStream>((resolve, reject) => {
    const ws = new WebSocket(spec.url, { headers: spec.headers, handshakeTimeout: HANDSHAKE_TIMEOUT_MS, perMessageDeflate: false, maxPayload: MAX_VENDOR_MESSAGE_BYTES });
    let started = false;
    let ended = false;
    let finished = false;
    const stream: SttStream = {
      send(pcm) {
        if (ws.readyState !== WebSocket.OPEN) return;
        const out = spec.frame ? spec.frame(pcm) : pcm;
        if (out !== null) ws.send(out);
      },
      end() {
        ended = true;
        if (ws.readyState !== WebSocket.OPEN) return;
        const rest = spec.flush?.();
        if (rest) ws.send(rest);
        const msg = spec.endMessage();
        if (msg === null) ws.close(1000);
        else ws.send(msg);
      },
      abort() {
        finished = true;
        ws.terminate();
      },
    };
    const fail = (err: SttError, at: number) => {
      if (finished) return;
      if (!started) {
        finished = true;
        reject(err);
        ws.terminate();
        return;
      }
      onEvent({ type: 'error', error: err, at });
      finished = true;
      onEvent({ type: 'close', at });
      ws.terminate();
    };
    const onAbort = () => fail(new SttError('timeout', `${ctx.vendor} did not accept the stream in time`), now());
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    const begin = () => {
      started = true;
      spec.signal?.removeEventListener('abort', onAbort);
      resolve(stream);
    };
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (c: Buffer) => {
        // A refusal's text is for the error message: its first 64 KB are plenty.
        if (kept >= 65_536) return void res.destroy(new Error('refusal body too long'));
        kept += c.length;
        chunks.push(c);
      });
      res.on('end', () => fail(failure(ctx, res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')), now()));
      res.on('error', () => fail(failure(ctx, res.statusCode ?? 0, ''), now()));
    });
    ws.on('open', () => {
      if (spec.hello !== undefined) ws.send(spec.hello);
      if (!spec.ready) begin();
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const at = now();
      if (finished) return;
      let message: unknown;
      try {
        if (isBinary) throw new Error('binary');
        message = JSON.parse(rawText(data));
      } catch {
        fail(new SttError('upstream_error', `${ctx.vendor} sent a malformed message (not JSON text)`), at);
        return;
      }
      if (!started) {
        try {
          if (spec.ready?.(message)) begin();
          else onEvent({ type: 'message', at });
        } catch (err) {
          fail(err instanceof SttError ? err : new SttError('upstream_error', `${ctx.vendor} refused the stream`), at);
        }
        return;
      }
      let events: StreamEvent[];
      try {
        events = spec.parse(message, at);
      } catch (err) {
        fail(err instanceof SttError ? err : new SttError('upstream_error', `${ctx.vendor} sent a malformed message`), at);
        return;
      }
      for (const e of events) onEvent(e);
      if (ended && spec.lastMessage?.(message) && ws.readyState === WebSocket.OPEN) ws.close(1000);
    });
    ws.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        fail(new SttError('upstream_error', `${ctx.vendor} sent a message over ${MAX_VENDOR_MESSAGE_BYTES / (1024 * 1024)} MB`), now());
        return;
      }
      if (!started) fail(new SttError('upstream_error', `Could not reach ${ctx.vendor}: ${scrub(ctx, err.message)}`), now());
      // After the handshake ws follows an error with 'close', which reports it.
    });
    ws.on('close', (code: number, reasonBuf: Buffer) => {
      const at = now();
      spec.signal?.removeEventListener('abort', onAbort);
      if (finished) return;
      const reason = scrub(ctx, reasonBuf.toString('utf8'));
      const err = spec.closeError(code, reason, ended);
      if (err) {
        fail(err, at);
        return;
      }
      if (!started) {
        fail(new SttError('upstream_error', `${ctx.vendor} closed the connection before the stream started (code ${code})`), at);
        return;
      }
      if (!ended) {
        fail(new SttError('upstream_error', `${ctx.vendor} closed the stream before the end of the audio (code ${code}${reason ? `: ${reason}` : ''})`), at);
        return;
      }
      finished = true;
      onEvent({ type: 'close', at });
    });
  });
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
