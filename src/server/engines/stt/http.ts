/**
 * HTTP plumbing shared by the vendor adapters: one place that maps transport failures and vendor status
 * codes to the API's per-provider error codes (DESIGN §4.11) and keeps credentials out of messages.
 */
import type { fetch as undiciFetch, RequestInit, Response } from 'undici';
import { setTimeout as sleep } from 'node:timers/promises';
import { SttError } from './types.js';

/** Who we are talking to: the vendor's display name, the secrets to scrub, and an injectable fetch. */
export interface VendorContext {
  vendor: string;
  /** Values that must never appear in an error message (API keys). */
  secrets: string[];
  fetch?: typeof undiciFetch;
}

/** How vendors word "this audio is the problem" in a 400 (format, corruption, length). */
const AUDIO_REFUSAL = /unsupported (audio|media|file|format)|invalid (file|audio|media) format|corrupt|could not (decode|process) (the )?(audio|media|file)|audio (is )?too (long|short)|(duration|length) exceeds|no audio/i;

/** Longest vendor error text we quote. */
const MAX_MESSAGE = 300;

/** Replaces every secret in `text` (a vendor may echo the key back, Google has it in the URL). */
export function scrub(ctx: VendorContext, text: string): string {
  let out = text;
  for (const s of ctx.secrets) if (s) out = out.split(s).join('[redacted]');
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE)}...` : out;
}

/** Best human message of a vendor error body: the common JSON shapes of the nine vendors, else the text. */
export function vendorMessage(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const t = text.trim();
    return t ? t : undefined;
  }
  const pick = (v: unknown): string | undefined => {
    if (typeof v === 'string' && v.trim()) return v.trim();
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      return pick(o.message) ?? pick(o.err_msg) ?? pick(o.detail) ?? pick(o.error) ?? pick(o.title) ?? pick(o.failure_detail);
    }
    return undefined;
  };
  return pick(body) ?? (text.trim() || undefined);
}

/** Maps a vendor HTTP status and body to the API's per-provider error (also a refused WebSocket handshake). */
export function failure(ctx: VendorContext, status: number, text: string): SttError {
  const msg = scrub(ctx, vendorMessage(text) ?? `HTTP ${status}`);
  if (status === 401 || status === 403) return new SttError('upstream_error', `${ctx.vendor} rejected the credentials (HTTP ${status}): ${msg}`);
  if (status === 429) return new SttError('rate_limited', `${ctx.vendor} rate limit exceeded: ${msg}`);
  if (status === 413 || status === 415) return new SttError('unsupported_audio', `${ctx.vendor} cannot take this audio (HTTP ${status}): ${msg}`);
  if (status === 408 || status === 504) return new SttError('timeout', `${ctx.vendor} timed out (HTTP ${status}): ${msg}`);
  if (status >= 500) return new SttError('upstream_error', `${ctx.vendor} server error (HTTP ${status}): ${msg}`);
  // A plain 400 is usually our request, but vendors also use it for audio they cannot take.
  if ((status === 400 || status === 422) && AUDIO_REFUSAL.test(msg)) {
    return new SttError('unsupported_audio', `${ctx.vendor} cannot take this audio (HTTP ${status}): ${msg}`);
  }
  return new SttError('upstream_error', `${ctx.vendor} refused the request (HTTP ${status}): ${msg}`);
}

/** Maps a thrown transport error: our abort (the provider timeout) → `timeout`, anything else → `upstream_error`. */
export function transportFailure(ctx: VendorContext, err: unknown, signal: AbortSignal): SttError {
  if (err instanceof SttError) return err;
  // A budget that ran out carries its own explanation.
  if (signal.aborted && signal.reason instanceof SttError) return signal.reason;
  if (signal.aborted) return new SttError('timeout', `${ctx.vendor} did not answer in time`, { cause: err });
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new SttError('upstream_error', `Could not reach ${ctx.vendor}: ${scrub(ctx, reason)}`, { cause: err });
}

/** A request to a vendor; `maxBytes` bounds the body read back (none: the body is read whole). */
export type VendorRequest = RequestInit & { signal: AbortSignal; maxBytes?: number };

/** The body of `res` as text, read chunk by chunk: one over `maxBytes` is refused (`upstream_error`) without being held. */
async function boundedText(ctx: VendorContext, res: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => new SttError('upstream_error', `${ctx.vendor} sent a response over ${Math.round(maxBytes / (1024 * 1024))} MB`);
  if (Number(res.headers.get('content-length')) > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends one request; resolves to the response body text of a 2xx, throws `SttError` otherwise. */
export async function vendorText(ctx: VendorContext, url: string, request: VendorRequest): Promise<string> {
  const { maxBytes, ...init } = request;
  let res: Response;
  let text: string;
  try {
    // undici loads with the first vendor call (Node's global fetch is a different undici: no FormData of ours).
    res = await (ctx.fetch ?? (await import('undici')).fetch)(url, init);
    text = maxBytes === undefined ? await res.text() : await boundedText(ctx, res, maxBytes);
  } catch (err) {
    throw transportFailure(ctx, err, init.signal);
  }
  if (res.status < 200 || res.status > 299) throw failure(ctx, res.status, text);
  return text;
}

/** Like `vendorText`, parsing the body as JSON; a body that is not JSON is the vendor's fault (`upstream_error`). */
export async function vendorJson<T = unknown>(ctx: VendorContext, url: string, init: VendorRequest): Promise<T> {
  const text = await vendorText(ctx, url, init);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new SttError('upstream_error', `${ctx.vendor} returned a malformed response (not JSON)`);
  }
}

/** Throws `upstream_error` naming the missing field when a vendor response lacks what we need. */
export function malformed(ctx: VendorContext, what: string): SttError {
  return new SttError('upstream_error', `${ctx.vendor} returned a malformed response (${what})`);
}

/** Repeats `step` every `intervalMs` until it returns a value (job finished or failed); abort ends it. */
export async function pollUntil<T>(opts: {
  ctx: VendorContext;
  step: () => Promise<T | undefined>;
  intervalMs: number;
  signal: AbortSignal;
}): Promise<T> {
  for (;;) {
    const result = await opts.step();
    if (result !== undefined) return result;
    try {
      await sleep(opts.intervalMs, undefined, { signal: opts.signal });
    } catch (err) {
      throw transportFailure(opts.ctx, err, opts.signal);
    }
  }
}

/**
 * Polls a job's status URL until `finished` accepts what it returns, done or failed alike: the job-based
 * vendors differ only in where the status lives, and each maps its own failure afterwards.
 */
export function pollJob<T>(
  ctx: VendorContext,
  url: string,
  opts: { headers: Record<string, string>; signal: AbortSignal; intervalMs: number; finished: (job: T) => boolean },
): Promise<T> {
  const { headers, signal } = opts;
  return pollUntil({
    ctx,
    signal,
    intervalMs: opts.intervalMs,
    step: async () => {
      const job = await vendorJson<T>(ctx, url, { headers, signal });
      return opts.finished(job) ? job : undefined;
    },
  });
}

/** Mean of the finite numbers in `values` within [0, 1], or null when there are none. */
export function meanConfidence(values: readonly unknown[]): number | null {
  const ok = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1);
  return ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : null;
}

/** Clamps a vendor-given confidence to [0, 1]; anything that is not a finite number is null. */
export function confidenceOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : null;
}
