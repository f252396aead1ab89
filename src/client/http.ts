import type { Dispatcher } from 'undici';
import { ApiRequestError, NetworkError } from './errors.js';
import { nodeRequest } from './node-http.js';
import { SERVICE_STARTING_HEADER, SERVICE_STARTING_RETRY_MS, SERVICE_STARTING_WAIT_MS } from '../shared/service-starting.js';

const STARTING = SERVICE_STARTING_HEADER.toLowerCase();

/** How the client talks HTTP (undici: Node's bundled fetch, or the npm package with a dispatcher). */
export interface HttpOptions {
  baseUrl: string;
  apiKey?: string;
  /** undici dispatcher (Agent, ProxyAgent, MockAgent in consumers' tests); default: the global one. */
  dispatcher?: Dispatcher;
  /** Full User-Agent header; default `voxctl/{version}`. */
  userAgent: string;
  /** Called with one line per request and per response (the key is never included). */
  onLog?: (line: string) => void;
  /** Per-request timeout in ms (default 120 s: synthesis and transcription can be slow). */
  timeoutMs?: number;
  /** Called with the status and lower-case headers of every answer (errors included). */
  onResponse?: (status: number, headers: Record<string, string>) => void;
  /** Called before each request that goes through fetch (forms, streams, a dispatcher) — not plain JSON ones. */
  beforeFetch?: () => void;
  /** How long to keep trying a starting service (default 30 s; 0: pass its 503 on at once). */
  startingWaitMs?: number;
  /** Waits between those tries (default: a timer); tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
}

/** One request: method, path (relative to the base URL or absolute), query, and a JSON or form body. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  form?: FormData;
  /** A body streamed as it is produced (a corpus archive): its bytes and Content-Type. */
  stream?: { body: AsyncIterable<Uint8Array>; contentType: string };
  headers?: Record<string, string>;
  /** This request's timeout in ms instead of the client's (a 2 GB upload outlasts any API call). */
  timeoutMs?: number;
  /** Send the Authorization header (default true; signed audio URLs need none). */
  auth?: boolean;
  /** Receives a 2xx body chunk by chunk as it arrives (streamed answers); the whole body is still returned. */
  onChunk?: (chunk: Uint8Array) => void;
}

/** A decoded response: status, headers (lower-case) and the raw body bytes. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Builds the absolute URL of `spec` (absolute paths are used as-is). */
export function buildUrl(baseUrl: string, spec: Pick<RequestSpec, 'path' | 'query'>): URL {
  const url = /^https?:\/\//.test(spec.path) ? new URL(spec.path) : new URL(baseUrl.replace(/\/+$/, '') + spec.path);
  for (const [k, v] of Object.entries(spec.query ?? {})) {
    if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  }
  return url;
}

type FetchFn = (url: URL, init: Record<string, unknown>) => Promise<Response>;

/**
 * The fetch to use: undici's own when a dispatcher is given (it understands it), else Node's built-in
 * fetch — the same undici, bundled in Node, which loads in half the time of the npm package.
 */
async function fetchFor(opts: HttpOptions): Promise<FetchFn> {
  if (opts.dispatcher) return (await import('undici')).fetch as unknown as FetchFn;
  return globalThis.fetch as unknown as FetchFn;
}

/** A FormData the chosen fetch can serialise. */
export async function newForm(opts: HttpOptions): Promise<FormData> {
  if (opts.dispatcher) return new (await import('undici')).FormData() as unknown as FormData;
  return new FormData();
}

/**
 * Sends `spec` and returns the raw answer; non-2xx becomes ApiRequestError, transport failures NetworkError.
 * A 503 from a starting service (its `X-Voxctl-Starting` header: nothing ran) is sent again every second
 * for up to 30 s, whatever the method — except a streamed body, which was spent on the first try.
 */
export async function send(opts: HttpOptions, spec: RequestSpec): Promise<RawResponse> {
  const url = buildUrl(opts.baseUrl, spec);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let waited = 0; ; waited += SERVICE_STARTING_RETRY_MS) {
    const answer = await attempt(opts, spec, url);
    const starting = answer.status === 503 && answer.headers[STARTING] === '1';
    if (starting && !spec.stream && waited + SERVICE_STARTING_RETRY_MS <= (opts.startingWaitMs ?? SERVICE_STARTING_WAIT_MS)) {
      opts.onLog?.(`… the service is starting; ${spec.method} ${url.pathname} again in ${SERVICE_STARTING_RETRY_MS / 1000} s`);
      await sleep(SERVICE_STARTING_RETRY_MS);
      continue;
    }
    if (answer.status >= 400) throw toApiError(answer.status, answer.headers, answer.body);
    return answer;
  }
}

/** One try of `spec`: its answer whatever the status, or NetworkError. */
async function attempt(opts: HttpOptions, spec: RequestSpec, url: URL): Promise<RawResponse> {
  const headers: Record<string, string> = { 'user-agent': opts.userAgent, accept: 'application/json', ...spec.headers };
  if (spec.auth !== false && opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let body: string | FormData | ReadableStream<Uint8Array> | undefined;
  if (spec.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(spec.json);
  } else if (spec.form) {
    body = spec.form;
  } else if (spec.stream) {
    headers['content-type'] = spec.stream.contentType;
    body = readableFrom(spec.stream.body);
  }
  // Timed only for the request log: the first use of `performance` loads perf_hooks (a few ms of a CLI start).
  const started = opts.onLog ? performance.now() : 0;
  opts.onLog?.(`→ ${spec.method} ${redactUrl(url)}`);
  let status: number;
  const flat: Record<string, string> = {};
  let buf: Buffer;
  try {
    if (!opts.dispatcher && typeof body !== 'object') {
      const answer = await nodeRequest(url, { method: spec.method, headers, body, timeoutMs: spec.timeoutMs ?? opts.timeoutMs ?? 120_000, onChunk: spec.onChunk });
      status = answer.status;
      Object.assign(flat, answer.headers);
      buf = answer.body;
    } else {
      ({ status, buf } = await viaFetch(opts, spec, url, headers, body, flat));
    }
  } catch (error) {
    opts.onLog?.(`✗ ${spec.method} ${redactUrl(url)} failed after ${Math.round(performance.now() - started)} ms`);
    throw new NetworkError(url.origin, error);
  }
  opts.onLog?.(
    `← ${status} ${spec.method} ${url.pathname} ${Math.round(performance.now() - started)} ms` +
      (flat['x-request-id'] ? ` request-id=${flat['x-request-id']}` : ''),
  );
  opts.onResponse?.(status, flat);
  return { status, headers: flat, body: buf };
}

/** The fetch path: forms, streamed bodies and caller-given dispatchers (fills `flat` with the headers). */
async function viaFetch(
  opts: HttpOptions,
  spec: RequestSpec,
  url: URL,
  headers: Record<string, string>,
  body: string | FormData | ReadableStream<Uint8Array> | undefined,
  flat: Record<string, string>,
): Promise<{ status: number; buf: Buffer }> {
  opts.beforeFetch?.();
  const doFetch = await fetchFor(opts);
  const res = await doFetch(url, {
    method: spec.method,
    headers,
    body,
    // A streamed body needs half-duplex (fetch's rule for request streams).
    ...(spec.stream ? { duplex: 'half' } : {}),
    signal: AbortSignal.timeout(spec.timeoutMs ?? opts.timeoutMs ?? 120_000),
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
  });
  let buf: Buffer;
  if (spec.onChunk && res.ok && res.body) {
    const parts: Uint8Array[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      parts.push(chunk);
      spec.onChunk(chunk);
    }
    buf = Buffer.concat(parts);
  } else {
    buf = Buffer.from(await res.arrayBuffer());
  }
  res.headers.forEach((v, k) => (flat[k.toLowerCase()] = v));
  return { status: res.status, buf };
}

/** Sends `spec` and parses a JSON answer (204 → undefined). */
export async function sendJson<T>(opts: HttpOptions, spec: RequestSpec): Promise<T> {
  const res = await send(opts, spec);
  if (res.status === 204 || res.body.length === 0) return undefined as T;
  try {
    return JSON.parse(res.body.toString('utf8')) as T;
  } catch {
    throw new ApiRequestError({ status: res.status, detail: 'The server answered with invalid JSON', requestId: res.headers['x-request-id'] });
  }
}

/** A web stream pulling from `source` one chunk at a time (backpressure: nothing is read ahead of the socket). */
function readableFrom(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await it.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel(reason) {
      await it.return?.(reason);
    },
  });
}

// Signed audio URLs carry their signature in the query: keep it out of logs.
function redactUrl(url: URL): string {
  const copy = new URL(url);
  if (copy.searchParams.has('sig')) copy.searchParams.set('sig', '[redacted]');
  return copy.toString();
}

function toApiError(status: number, headers: Record<string, string>, body: Buffer): ApiRequestError {
  let detail = `HTTP ${status}`;
  let errors: ApiRequestError['errors'];
  let requestId = headers['x-request-id'];
  let code: string | undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { detail?: unknown; request_id?: unknown; code?: unknown; errors?: ApiRequestError['errors'] };
    if (typeof parsed.detail === 'string') detail = parsed.detail;
    if (typeof parsed.code === 'string') code = parsed.code;
    if (typeof parsed.request_id === 'string') requestId = parsed.request_id;
    if (Array.isArray(parsed.errors)) errors = parsed.errors;
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the status line as the detail.
  }
  const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined);
  return new ApiRequestError({
    status,
    detail,
    code,
    requestId,
    retryAfter: num(headers['retry-after']),
    rateLimitReset: num(headers['x-ratelimit-reset']),
    errors,
  });
}

