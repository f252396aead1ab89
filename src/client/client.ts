import type { Dispatcher } from 'undici';
import { VERSION } from '../shared/version.js';
import type { PageOf } from '../shared/schemas/common.js';
import type { Speaker, SpeakerFacets, SpeakerQuery } from '../shared/schemas/speakers.js';
import type {
  AudioUploaded,
  BatchCreated,
  BatchRequest,
  Job,
  JobQuery,
  JobSummary,
  SynthesizeRequest,
  SynthesizeResponse,
} from '../shared/schemas/tts.js';
import type { AccuracyRequest, AccuracyResult, ProviderList, TranscribeRequest, TranscribeResponse } from '../shared/schemas/stt.js';
import type { StreamDone, StreamEventLine, StreamRequest } from '../shared/schemas/stt-stream.js';
import type { Dataset, DatasetCreated, DatasetSummary } from '../shared/schemas/datasets.js';
import type { ApiKeyInfo, CreateKeyRequest, CreatedKey, Usage, User } from '../shared/schemas/users.js';
import type { BillingPortal, Health, Subscription } from '../shared/schemas/system.js';
import type {
  CreateEvaluationRequest,
  EvaluationCompare,
  EvaluationCreated,
  EvaluationDetail,
  EvaluationListItem,
  EvaluationListQuery,
  EvaluationUtterance,
  EvaluationUtteranceQuery,
  RerunEvaluationRequest,
} from '../shared/schemas/evaluations.js';
import type { Corpus, CorpusUtterance } from '../shared/schemas/corpora.js';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { newForm, send, sendJson, type HttpOptions } from './http.js';
import { multipartStream } from './multipart-stream.js';
import { ApiRequestError } from './errors.js';

/** Options of `createClient`. */
export interface ClientOptions {
  /** Service base URL, e.g. `http://127.0.0.1:7723` (no `/v1`). */
  baseUrl: string;
  /** Bearer API key; public endpoints work without one. */
  apiKey?: string;
  /** undici dispatcher to use instead of the global one. */
  dispatcher?: Dispatcher;
  /** User-Agent header (default `voxctl/{version}`). */
  userAgent?: string;
  /** Receives one line per request/response, for `--verbose`; never contains the key. */
  onLog?: (line: string) => void;
  /** Per-request timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** Called before each request that goes through fetch (uploads and streams; plain JSON requests do not). */
  beforeFetch?: () => void;
  /** How long to keep trying a starting service (default 30 s; 0: pass its 503 on at once). */
  startingWaitMs?: number;
  /** Waits between those tries (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

/** Paging arguments of list calls. */
export interface Paging {
  limit?: number;
  offset?: number;
}

/** A file to upload: its bytes and the name it is sent under. */
export interface UploadFile {
  data: Uint8Array;
  filename: string;
  contentType?: string;
}

/** What `uploadCorpus` sends: a name and an archive (a file path, or bytes as they are produced). */
export interface CorpusUploadInput {
  name: string;
  /** A .zip/.tar/.tar.gz path (streamed from disk), or the archive's bytes as a stream (a directory tarred on the fly). */
  file: string | AsyncIterable<Uint8Array>;
  /** The file name sent (default: the path's base name, or `corpus.tar` for a stream). */
  filename?: string;
  /** Called with the archive bytes sent so far (progress bars). */
  onProgress?: (bytesSent: number) => void;
  /** Timeout of the whole upload and decoding in ms (default one hour). */
  timeoutMs?: number;
}

/** Default timeout of a corpus upload: sending up to 2 GiB and decoding every file take minutes, not seconds. */
const CORPUS_UPLOAD_TIMEOUT_MS = 3_600_000;

/** The typed client of the voxctl service: one method per endpoint. */
export interface VoxClient {
  readonly baseUrl: string;
  health(): Promise<Health>;
  /** The server's version from /health (for the CLI's version-mismatch warning). */
  serverVersion(): Promise<string>;
  listSpeakers(query?: SpeakerQuery): Promise<PageOf<Speaker>>;
  getSpeaker(id: string): Promise<Speaker>;
  speakerFacets(): Promise<SpeakerFacets>;
  synthesize(body: SynthesizeRequest): Promise<SynthesizeResponse>;
  submitBatch(body: BatchRequest, options?: { idempotencyKey?: string }): Promise<BatchCreated>;
  listJobs(query?: JobQuery): Promise<PageOf<JobSummary>>;
  getJob(id: string): Promise<Job>;
  uploadAudio(file: UploadFile): Promise<AudioUploaded>;
  transcribe(body: TranscribeRequest): Promise<TranscribeResponse>;
  /** POST /v1/stt/stream: calls `onEvent` with each NDJSON event as it arrives; resolves with the `done` event. */
  streamStt(body: StreamRequest, onEvent?: (event: StreamEventLine) => void): Promise<StreamDone>;
  listProviders(): Promise<ProviderList>;
  calculateAccuracy(body: AccuracyRequest): Promise<AccuracyResult>;
  uploadDataset(input: { file: UploadFile; name: string; language?: string; generateAudio?: boolean }): Promise<DatasetCreated>;
  listDatasets(query?: Paging): Promise<PageOf<DatasetSummary>>;
  getDataset(id: string): Promise<Dataset>;
  me(): Promise<User>;
  usage(): Promise<Usage>;
  billingPortal(): Promise<BillingPortal>;
  subscription(): Promise<Subscription>;
  listKeys(query?: Paging): Promise<PageOf<ApiKeyInfo>>;
  createKey(body?: CreateKeyRequest): Promise<CreatedKey>;
  revokeKey(id: string): Promise<void>;
  /** Downloads a (signed) audio URL of this service as bytes; the key is not sent. */
  downloadAudio(url: string): Promise<Buffer>;
  /** The X-RateLimit-* headers of the last answer that carried them (the API has no endpoint for them). */
  lastRateLimit(): RateLimitHeaders | undefined;
  createEvaluation(body: CreateEvaluationRequest): Promise<EvaluationCreated>;
  listEvaluations(query?: EvaluationListQuery): Promise<PageOf<EvaluationListItem>>;
  getEvaluation(id: string): Promise<EvaluationDetail>;
  listEvaluationUtterances(id: string, query?: EvaluationUtteranceQuery): Promise<PageOf<EvaluationUtterance>>;
  cancelEvaluation(id: string): Promise<EvaluationDetail>;
  /** Starts the same evaluation again (same texts, speakers, conditions, providers, normaliser, seed); its `baseline_id` is `id`; `name` names it (default the baseline's). */
  rerunEvaluation(id: string, body?: RerunEvaluationRequest): Promise<EvaluationCreated>;
  /** Compares evaluation `id` with `baselineId` on their matched utterances (DESIGN §11.3). */
  compareEvaluations(id: string, baselineId: string): Promise<EvaluationCompare>;
  /**
   * A call's NIST file (DESIGN §16.2, §16.4): `reference.rttm`, `reference.stm`, or a provider's
   * `hypothesis.rttm` (with `provider` and `condition`); `n` counts calls from 1.
   */
  getCallFile(id: string, n: number, file: 'reference.rttm' | 'reference.stm' | 'hypothesis.rttm', query?: { provider?: string; condition?: string }): Promise<string>;
  /** Downloads an evaluation's signed `report_url` as HTML text; the key is not sent. */
  downloadReport(url: string): Promise<string>;
  /** POST /v1/corpora: streams the archive as multipart (never read whole into memory). */
  uploadCorpus(input: CorpusUploadInput): Promise<Corpus>;
  listCorpora(query?: Paging): Promise<PageOf<Corpus>>;
  getCorpus(id: string): Promise<Corpus>;
  listCorpusUtterances(id: string, query?: Paging): Promise<PageOf<CorpusUtterance>>;
  deleteCorpus(id: string): Promise<void>;
}

/** The three rate-limit headers of an answer (DESIGN §4.14). */
export interface RateLimitHeaders {
  /** Requests per minute. */
  limit: number;
  /** The smaller of the minute and day remaining. */
  remaining: number;
  /** Unix epoch seconds when the binding window resets. */
  reset: number;
}

const enc = encodeURIComponent;

/** Creates a client bound to one base URL and key. */
export function createClient(options: ClientOptions): VoxClient {
  let rateLimit: RateLimitHeaders | undefined;
  const http: HttpOptions = {
    onResponse: (_status, headers) => {
      const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((h) => Number(headers[h] ?? NaN));
      if (Number.isInteger(limit) && Number.isInteger(remaining) && Number.isInteger(reset)) rateLimit = { limit: limit!, remaining: remaining!, reset: reset! };
    },
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    dispatcher: options.dispatcher,
    userAgent: options.userAgent ?? `voxctl/${VERSION}`,
    onLog: options.onLog,
    timeoutMs: options.timeoutMs,
    beforeFetch: options.beforeFetch,
    startingWaitMs: options.startingWaitMs,
    sleep: options.sleep,
  };
  const get = <T>(path: string, query?: Record<string, string | number | boolean | undefined>, auth = true) =>
    sendJson<T>(http, { method: 'GET', path, query, auth });
  const post = <T>(path: string, json: unknown, headers?: Record<string, string>) =>
    sendJson<T>(http, { method: 'POST', path, json, headers });
  const upload = <T>(path: string, form: FormData) => sendJson<T>(http, { method: 'POST', path, form });
  const fileBlob = (f: UploadFile) => new Blob([f.data], { type: f.contentType ?? 'application/octet-stream' });

  return {
    baseUrl: options.baseUrl,
    health: () => get<Health>('/health', undefined, false),
    serverVersion: async () => (await get<Health>('/health', undefined, false)).version,
    listSpeakers: (query = {}) => get<PageOf<Speaker>>('/v1/speakers', { ...query }),
    getSpeaker: (id) => get<Speaker>(`/v1/speakers/${enc(id)}`),
    speakerFacets: () => get<SpeakerFacets>('/v1/speakers/facets'),
    synthesize: (body) => post<SynthesizeResponse>('/v1/tts/synthesize', body),
    submitBatch: (body, opts = {}) =>
      post<BatchCreated>('/v1/tts/batch', body, opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : undefined),
    listJobs: (query = {}) => get<PageOf<JobSummary>>('/v1/jobs', { ...query }),
    getJob: (id) => get<Job>(`/v1/jobs/${enc(id)}`),
    uploadAudio: async (file) => {
      const form = await newForm(http);
      form.append('file', fileBlob(file), file.filename);
      return upload<AudioUploaded>('/v1/audio', form);
    },
    transcribe: (body) => post<TranscribeResponse>('/v1/stt/transcribe', body),
    streamStt: async (body, onEvent) => {
      let pending = '';
      let done: StreamDone | undefined;
      const decoder = new TextDecoder();
      const take = (line: string) => {
        if (!line.trim()) return;
        const event = JSON.parse(line) as StreamEventLine;
        if (event.event === 'done') done = event;
        onEvent?.(event);
      };
      // Audio goes out at its own pace: a long file must not hit the default request timeout.
      await send({ ...http, timeoutMs: Math.max(http.timeoutMs ?? 0, 60 * 60_000) }, {
        method: 'POST',
        path: '/v1/stt/stream',
        json: body,
        headers: { accept: 'application/x-ndjson' },
        onChunk: (chunk) => {
          pending += decoder.decode(chunk, { stream: true });
          const lines = pending.split('\n');
          pending = lines.pop() ?? '';
          lines.forEach(take);
        },
      });
      take(pending);
      if (!done) throw new ApiRequestError({ status: 200, detail: 'The stream ended before its results' });
      return done;
    },
    listProviders: () => get<ProviderList>('/v1/stt/providers'),
    calculateAccuracy: (body) => post<AccuracyResult>('/v1/stt/calculate-accuracy', body),
    uploadDataset: async ({ file, name, language, generateAudio }) => {
      const form = await newForm(http);
      form.append('name', name);
      if (language !== undefined) form.append('language', language);
      if (generateAudio !== undefined) form.append('generate_audio', generateAudio ? 'true' : 'false');
      form.append('file', fileBlob({ contentType: 'text/csv', ...file }), file.filename);
      return upload<DatasetCreated>('/v1/datasets/upload', form);
    },
    listDatasets: (query = {}) => get<PageOf<DatasetSummary>>('/v1/datasets', { ...query }),
    getDataset: (id) => get<Dataset>(`/v1/datasets/${enc(id)}`),
    me: () => get<User>('/v1/users/me'),
    usage: () => get<Usage>('/v1/users/usage'),
    billingPortal: () => get<BillingPortal>('/v1/billing/portal'),
    subscription: () => get<Subscription>('/v1/billing/subscription'),
    listKeys: (query = {}) => get<PageOf<ApiKeyInfo>>('/v1/keys', { ...query }),
    createKey: (body = {}) => post<CreatedKey>('/v1/keys', body),
    revokeKey: async (id) => {
      await send(http, { method: 'DELETE', path: `/v1/keys/${enc(id)}` });
    },
    lastRateLimit: () => rateLimit,
    downloadAudio: async (url) => (await send(http, { method: 'GET', path: url, auth: false, headers: { accept: 'audio/wav, */*' } })).body,
    createEvaluation: (body) => post<EvaluationCreated>('/v1/evaluations', body),
    listEvaluations: (query = {}) => get<PageOf<EvaluationListItem>>('/v1/evaluations', { ...query }),
    getEvaluation: (id) => get<EvaluationDetail>(`/v1/evaluations/${enc(id)}`),
    listEvaluationUtterances: (id, query = {}) => get<PageOf<EvaluationUtterance>>(`/v1/evaluations/${enc(id)}/utterances`, { ...query }),
    cancelEvaluation: (id) => post<EvaluationDetail>(`/v1/evaluations/${enc(id)}/cancel`, {}),
    rerunEvaluation: (id, body = {}) => post<EvaluationCreated>(`/v1/evaluations/${enc(id)}/rerun`, body),
    compareEvaluations: (id, baselineId) => get<EvaluationCompare>(`/v1/evaluations/${enc(id)}/compare`, { baseline: baselineId }),
    getCallFile: async (id, n, file, query = {}) =>
      (await send(http, { method: 'GET', path: `/v1/evaluations/${enc(id)}/calls/${n}/${file}`, query: { ...query }, headers: { accept: 'text/plain, */*' } })).body.toString('utf8'),
    downloadReport: async (url) =>
      (await send(http, { method: 'GET', path: url, auth: false, headers: { accept: 'text/html, */*' } })).body.toString('utf8'),
    uploadCorpus: ({ name, file, filename, onProgress, timeoutMs }) => {
      const data = typeof file === 'string' ? (createReadStream(file) as AsyncIterable<Uint8Array>) : file;
      const stream = multipartStream({ name }, { data, filename: filename ?? (typeof file === 'string' ? basename(file) : 'corpus.tar'), onProgress });
      return sendJson<Corpus>(http, { method: 'POST', path: '/v1/corpora', stream, timeoutMs: timeoutMs ?? CORPUS_UPLOAD_TIMEOUT_MS });
    },
    listCorpora: (query = {}) => get<PageOf<Corpus>>('/v1/corpora', { ...query }),
    getCorpus: (id) => get<Corpus>(`/v1/corpora/${enc(id)}`),
    listCorpusUtterances: (id, query = {}) => get<PageOf<CorpusUtterance>>(`/v1/corpora/${enc(id)}/utterances`, { ...query }),
    deleteCorpus: async (id) => {
      await send(http, { method: 'DELETE', path: `/v1/corpora/${enc(id)}` });
    },
  };
}

/** Follows `has_more` through every page of a list call (page size 100). */
export async function* paginate<T>(fetchPage: (paging: Required<Paging>) => Promise<PageOf<T>>, start = 0): AsyncGenerator<T> {
  let offset = start;
  for (;;) {
    const page = await fetchPage({ limit: 100, offset });
    yield* page.items;
    if (!page.has_more || page.items.length === 0) return;
    offset += page.items.length;
  }
}
