/**
 * Loopback fakes of the nine hosted STT vendors, speaking each one's documented wire format
 * (see /work/shared/STT-VENDORS.md and the vendors' API references). Every fake checks what it receives
 * — path, auth header, body format, parameters — and answers 400 `fake: ...` on any deviation, so a
 * contract break fails the test. Modes simulate the failure matrix.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Vendor = 'openai' | 'deepgram' | 'assemblyai' | 'google' | 'azure' | 'revai' | 'speechmatics' | 'elevenlabs' | 'gladia';
export const VENDORS: Vendor[] = ['openai', 'deepgram', 'assemblyai', 'google', 'azure', 'revai', 'speechmatics', 'elevenlabs', 'gladia'];
/** Vendors whose flow is submit + poll. */
export const POLLING_VENDORS: Vendor[] = ['assemblyai', 'revai', 'speechmatics', 'gladia'];

/** ok, or a failure: on the flow's first request (401/429/500/malformed/hang/413) or in the polled status (job-error). */
export type FakeMode = 'ok' | '401' | '429' | '500' | 'malformed' | 'hang' | '413' | 'job-error';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface FakeVendor {
  vendor: Vendor;
  url: string;
  key: string;
  mode: FakeMode;
  /** Delay before answering the first request of a flow (ms): the vendor's "processing time". */
  delayMs: number;
  /** "Still processing" answers before a job is done. */
  pendingPolls: number;
  requests: RecordedRequest[];
  /** Contract violations seen (also answered with 400). */
  violations: string[];
  close(): Promise<void>;
}

/** The sentence every fake "recognises", with the confidence it implies for its vendor. */
export const FAKE_TRANSCRIPT = 'Please call me back after the meeting tomorrow morning.';

class Violation extends Error {}
const must = (cond: unknown, what: string): void => {
  if (!cond) throw new Violation(what);
};
const isWav = (b: Buffer | Uint8Array) => Buffer.from(b).subarray(0, 4).toString('latin1') === 'RIFF' && Buffer.from(b).subarray(8, 12).toString('latin1') === 'WAVE';

async function formOf(req: RecordedRequest): Promise<FormData> {
  const ct = String(req.headers['content-type'] ?? '');
  must(ct.startsWith('multipart/form-data'), `expected multipart/form-data, got ${ct}`);
  return new Request('http://fake/', { method: 'POST', headers: { 'content-type': ct }, body: req.body }).formData();
}

async function fileField(form: FormData, name: string): Promise<Buffer> {
  const f = form.get(name);
  must(f && typeof f !== 'string', `multipart part '${name}' must be a file`);
  const b = Buffer.from(await (f as Blob).arrayBuffer());
  must(isWav(b), `part '${name}' must be a WAV file`);
  return b;
}

function jsonOf(req: RecordedRequest): Record<string, unknown> {
  must(String(req.headers['content-type'] ?? '').startsWith('application/json'), 'expected application/json');
  try {
    return JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new Violation('body is not JSON');
  }
}

const words = FAKE_TRANSCRIPT.replace(/\.$/, '').split(' ');

/** Vendor-realistic error bodies for the auth failure (the adapters must quote the message). */
const AUTH_ERRORS: Record<Vendor, unknown> = {
  openai: { error: { message: 'Incorrect API key provided: sk-bad.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
  deepgram: { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: 'dg-req-1' },
  assemblyai: { error: 'Authentication error, API token missing/invalid' },
  google: { error: { code: 401, message: 'API key not valid. Please pass a valid API key.', status: 'UNAUTHENTICATED' } },
  azure: { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint.' } },
  revai: { title: 'Authorization has been denied for this request', status: 401 },
  speechmatics: { code: 401, error: 'Permission Denied' },
  elevenlabs: { detail: { status: 'invalid_api_key', message: 'Invalid API key' } },
  gladia: { statusCode: 401, message: 'Invalid or missing x-gladia-key header', request_id: 'G-1' },
};

type Reply = { status: number; body: unknown } | 'hang';
type Handler = (req: RecordedRequest, fake: FakeVendor, state: Map<string, number>) => Promise<Reply>;

const ok = (body: unknown, status = 200): Reply => ({ status, body });

/** The request that starts a flow (where failure modes and the processing delay apply). */
const FLOW_START: Record<Vendor, string[]> = {
  openai: ['/v1/audio/transcriptions', '/inference'],
  deepgram: ['/v1/listen'],
  assemblyai: ['/v2/upload'],
  google: ['/v1/speech:recognize'],
  azure: ['/speech/recognition/conversation/cognitiveservices/v1'],
  revai: ['/speechtotext/v1/jobs'],
  speechmatics: ['/v2/jobs'],
  elevenlabs: ['/v1/speech-to-text'],
  gladia: ['/v2/upload'],
};

/** Counts polls of job `id`: pending until `pendingPolls` answers were given. */
function pollDone(state: Map<string, number>, id: string, fake: FakeVendor): boolean {
  const n = (state.get(id) ?? 0) + 1;
  state.set(id, n);
  return n > fake.pendingPolls;
}

const HANDLERS: Record<Vendor, Handler> = {
  async openai(req, fake) {
    must(req.method === 'POST' && (req.path === '/v1/audio/transcriptions' || req.path === '/inference'), `unexpected ${req.method} ${req.path}`);
    // A self-hosted server (empty key) takes no Authorization header at all.
    must(fake.key ? req.headers.authorization === `Bearer ${fake.key}` : req.headers.authorization === undefined, 'Authorization must be Bearer KEY (none when self-hosted)');
    const form = await formOf(req);
    await fileField(form, 'file');
    const model = form.get('model');
    must(typeof model === 'string' && model.length > 0, 'model is required');
    const format = form.get('response_format');
    must(format === 'json' || format === 'verbose_json', 'response_format must be json or verbose_json');
    if (format === 'json') {
      if (form.getAll('include[]').includes('logprobs')) {
        return ok({ text: FAKE_TRANSCRIPT, logprobs: words.map((w) => ({ token: w, logprob: -0.1, bytes: [...Buffer.from(w)] })) });
      }
      return ok({ text: FAKE_TRANSCRIPT });
    }
    return ok({
      task: 'transcribe',
      language: 'english',
      duration: 3.26,
      text: FAKE_TRANSCRIPT,
      segments: [
        { id: 0, seek: 0, start: 0, end: 1.6, text: ' Please call me back', tokens: [1, 2], temperature: 0, avg_logprob: -0.2, compression_ratio: 0.9, no_speech_prob: 0.01 },
        { id: 1, seek: 0, start: 1.6, end: 3.2, text: ' after the meeting tomorrow morning.', tokens: [3], temperature: 0, avg_logprob: -0.4, compression_ratio: 0.9, no_speech_prob: 0.01 },
      ],
    });
  },
  async deepgram(req, fake) {
    must(req.method === 'POST' && req.path === '/v1/listen', `unexpected ${req.method} ${req.path}`);
    must(req.headers.authorization === `Token ${fake.key}`, 'Authorization must be Token KEY');
    must(req.query.get('model'), 'model query parameter is required');
    must(String(req.headers['content-type']).startsWith('audio/wav'), 'Content-Type must be audio/wav');
    must(isWav(req.body), 'body must be the WAV');
    return ok({
      metadata: { request_id: 'dg-1', duration: 3.26, channels: 1, models: ['nova-3'] },
      results: {
        channels: [
          {
            alternatives: [
              { transcript: FAKE_TRANSCRIPT, confidence: 0.98, words: words.map((w, i) => ({ word: w.toLowerCase(), start: i * 0.3, end: i * 0.3 + 0.25, confidence: 0.98, punctuated_word: w })) },
            ],
          },
        ],
      },
    });
  },
  async assemblyai(req, fake, state) {
    must(req.headers.authorization === fake.key, 'authorization must be the bare key');
    if (req.method === 'POST' && req.path === '/v2/upload') {
      must(isWav(req.body), 'upload body must be the raw WAV bytes');
      return ok({ upload_url: `${fake.url}/uploads/aai-file-1` });
    }
    if (req.method === 'POST' && req.path === '/v2/transcript') {
      const body = jsonOf(req);
      must(body.audio_url === `${fake.url}/uploads/aai-file-1`, 'audio_url must be the upload_url');
      must(Array.isArray(body.speech_models) || typeof body.speech_model === 'string', 'speech_models is required');
      return ok({ id: 'aai-t1', status: 'queued', audio_url: body.audio_url, text: null, confidence: null });
    }
    if (req.method === 'GET' && req.path === '/v2/transcript/aai-t1') {
      if (!pollDone(state, 'aai-t1', fake)) return ok({ id: 'aai-t1', status: 'processing', text: null, confidence: null });
      if (fake.mode === 'job-error') return ok({ id: 'aai-t1', status: 'error', error: 'Transcoding failed. File does not appear to contain audio.' });
      return ok({ id: 'aai-t1', status: 'completed', text: FAKE_TRANSCRIPT, confidence: 0.93, words: [], audio_duration: 3 });
    }
    throw new Violation(`unexpected ${req.method} ${req.path}`);
  },
  async google(req, fake) {
    must(req.method === 'POST' && req.path === '/v1/speech:recognize', `unexpected ${req.method} ${req.path}`);
    must(req.query.get('key') === fake.key, 'key query parameter must be the API key');
    const body = jsonOf(req) as { config?: Record<string, unknown>; audio?: { content?: unknown } };
    must(body.config?.encoding === 'LINEAR16', 'config.encoding must be LINEAR16');
    must(typeof body.config?.sampleRateHertz === 'number', 'config.sampleRateHertz is required');
    must(typeof body.config?.languageCode === 'string', 'config.languageCode is required');
    must(typeof body.audio?.content === 'string' && (body.audio.content as string).length > 100, 'audio.content must be base64 audio');
    return ok({
      results: [
        { alternatives: [{ transcript: 'Please call me back', confidence: 0.9 }], resultEndTime: '1.600s', languageCode: 'en-us' },
        { alternatives: [{ transcript: ' after the meeting tomorrow morning.', confidence: 0.8 }], resultEndTime: '3.200s', languageCode: 'en-us' },
      ],
      totalBilledTime: '4s',
      requestId: '123',
    });
  },
  async azure(req, fake) {
    must(req.method === 'POST' && req.path === '/speech/recognition/conversation/cognitiveservices/v1', `unexpected ${req.method} ${req.path}`);
    must(req.headers['ocp-apim-subscription-key'] === fake.key, 'Ocp-Apim-Subscription-Key must be the key');
    must(req.query.get('language'), 'language query parameter is required');
    must(req.query.get('format') === 'detailed', 'format=detailed expected');
    must(/^audio\/wav; ?codecs=audio\/pcm; ?samplerate=16000$/.test(String(req.headers['content-type'])), 'Content-Type must be audio/wav; codecs=audio/pcm; samplerate=16000');
    must(isWav(req.body) && req.body.readUInt32LE(24) === 16000, 'body must be a 16 kHz WAV');
    if (fake.mode === 'job-error') return ok({ RecognitionStatus: 'Error', Offset: 0, Duration: 0 });
    return ok({
      RecognitionStatus: 'Success',
      Offset: 1800000,
      Duration: 31000000,
      NBest: [{ Confidence: 0.95, Lexical: FAKE_TRANSCRIPT.toLowerCase(), ITN: '', MaskedITN: '', Display: FAKE_TRANSCRIPT }],
    });
  },
  async revai(req, fake, state) {
    must(req.headers.authorization === `Bearer ${fake.key}`, 'Authorization must be Bearer KEY');
    if (req.method === 'POST' && req.path === '/speechtotext/v1/jobs') {
      const form = await formOf(req);
      await fileField(form, 'media');
      const options = form.get('options');
      must(typeof options === 'string', "'options' part must be JSON text");
      JSON.parse(options as string);
      return ok({ id: 'rev-j1', created_on: '2024-01-01T00:00:00Z', name: 'audio.wav', status: 'in_progress', type: 'async' });
    }
    if (req.method === 'GET' && req.path === '/speechtotext/v1/jobs/rev-j1') {
      if (!pollDone(state, 'rev-j1', fake)) return ok({ id: 'rev-j1', status: 'in_progress', type: 'async' });
      if (fake.mode === 'job-error') return ok({ id: 'rev-j1', status: 'failed', failure: 'download_failure', failure_detail: 'Failed to process the media file' });
      return ok({ id: 'rev-j1', status: 'transcribed', duration_seconds: 3.26, type: 'async' });
    }
    if (req.method === 'GET' && req.path === '/speechtotext/v1/jobs/rev-j1/transcript') {
      must(req.headers.accept === 'application/vnd.rev.transcript.v1.0+json', 'Accept must be application/vnd.rev.transcript.v1.0+json');
      const elements = words.flatMap((w, i) => [
        { type: 'text', value: w, ts: i * 0.3, end_ts: i * 0.3 + 0.25, confidence: i % 2 ? 0.8 : 1.0 },
        { type: 'punct', value: i === words.length - 1 ? '.' : ' ' },
      ]);
      return ok({ monologues: [{ speaker: 0, elements }] });
    }
    throw new Violation(`unexpected ${req.method} ${req.path}`);
  },
  async speechmatics(req, fake, state) {
    must(req.headers.authorization === `Bearer ${fake.key}`, 'Authorization must be Bearer KEY');
    if (req.method === 'POST' && req.path === '/v2/jobs') {
      const form = await formOf(req);
      await fileField(form, 'data_file');
      const config = JSON.parse(String(form.get('config'))) as { type?: string; transcription_config?: { language?: string } };
      must(config.type === 'transcription' && typeof config.transcription_config?.language === 'string', 'config must be a transcription config with a language');
      return ok({ id: 'sm-1' }, 201);
    }
    if (req.method === 'GET' && req.path === '/v2/jobs/sm-1') {
      const job = { id: 'sm-1', created_at: '2024-01-01T00:00:00Z', data_name: 'audio.wav', duration: 3 };
      if (!pollDone(state, 'sm-1', fake)) return ok({ job: { ...job, status: 'running' } });
      if (fake.mode === 'job-error') return ok({ job: { ...job, status: 'rejected', errors: [{ timestamp: '2024-01-01T00:00:01Z', message: 'unsupported file format' }] } });
      return ok({ job: { ...job, status: 'done' } });
    }
    if (req.method === 'GET' && req.path === '/v2/jobs/sm-1/transcript') {
      must(req.query.get('format') === 'json-v2', 'format=json-v2 expected');
      const results = words.map((w, i) => ({ type: 'word', start_time: i * 0.3, end_time: i * 0.3 + 0.25, alternatives: [{ content: w, confidence: i % 2 ? 0.9 : 1.0, language: 'en' }] }));
      results.push({ type: 'punctuation', start_time: 3, end_time: 3, attaches_to: 'previous', is_eos: true, alternatives: [{ content: '.', confidence: 1, language: 'en' }] } as never);
      return ok({ format: '2.9', job: { id: 'sm-1' }, metadata: { transcription_config: { language: 'en' } }, results });
    }
    throw new Violation(`unexpected ${req.method} ${req.path}`);
  },
  async elevenlabs(req, fake) {
    must(req.method === 'POST' && req.path === '/v1/speech-to-text', `unexpected ${req.method} ${req.path}`);
    must(req.headers['xi-api-key'] === fake.key, 'xi-api-key must be the key');
    const form = await formOf(req);
    await fileField(form, 'file');
    must(typeof form.get('model_id') === 'string', 'model_id is required');
    return ok({
      language_code: 'eng',
      language_probability: 0.99,
      text: FAKE_TRANSCRIPT,
      words: words.flatMap((w, i) => [
        { text: w, type: 'word', start: i * 0.3, end: i * 0.3 + 0.25, logprob: -0.05 },
        { text: ' ', type: 'spacing', start: i * 0.3 + 0.25, end: i * 0.3 + 0.3, logprob: -3 },
      ]),
    });
  },
  async gladia(req, fake, state) {
    must(req.headers['x-gladia-key'] === fake.key, 'x-gladia-key must be the key');
    if (req.method === 'POST' && req.path === '/v2/upload') {
      const form = await formOf(req);
      await fileField(form, 'audio');
      return ok({ audio_url: 'https://api.gladia.io/file/gl-file-1', audio_metadata: { id: 'gl-file-1', filename: 'audio.wav', extension: 'wav', size: req.body.length, audio_duration: 3.26, number_of_channels: 1 } });
    }
    if (req.method === 'POST' && req.path === '/v2/pre-recorded') {
      const body = jsonOf(req);
      must(body.audio_url === 'https://api.gladia.io/file/gl-file-1', 'audio_url must be the uploaded file URL');
      return ok({ id: 'gl-1', result_url: 'https://api.gladia.io/v2/pre-recorded/gl-1' }, 201);
    }
    if (req.method === 'GET' && req.path === '/v2/pre-recorded/gl-1') {
      if (!pollDone(state, 'gl-1', fake)) return ok({ id: 'gl-1', status: 'processing', result: null, error_code: null });
      if (fake.mode === 'job-error') return ok({ id: 'gl-1', status: 'error', error_code: 500, result: null });
      return ok({
        id: 'gl-1',
        status: 'done',
        error_code: null,
        result: {
          metadata: { audio_duration: 3.26, number_of_distinct_channels: 1 },
          transcription: {
            full_transcript: FAKE_TRANSCRIPT,
            languages: ['en'],
            utterances: [
              { start: 0, end: 1.6, confidence: 0.9, channel: 0, language: 'en', text: 'Please call me back', words: [] },
              { start: 1.6, end: 3.2, confidence: 0.7, channel: 0, language: 'en', text: 'after the meeting tomorrow morning.', words: [] },
            ],
          },
        },
      });
    }
    throw new Violation(`unexpected ${req.method} ${req.path}`);
  },
};

/** Starts the fake of `vendor` on 127.0.0.1 (random port). */
export async function startFakeVendor(vendor: Vendor, opts: { key?: string; mode?: FakeMode; delayMs?: number; pendingPolls?: number } = {}): Promise<FakeVendor> {
  const state = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const fake: FakeVendor = {
    vendor,
    url: '',
    key: opts.key ?? `${vendor}-test-key-123`,
    mode: opts.mode ?? 'ok',
    delayMs: opts.delayMs ?? 0,
    pendingPolls: opts.pendingPolls ?? 1,
    requests: [],
    violations: [],
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://fake');
    const rec: RecordedRequest = { method: req.method ?? 'GET', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
    const first = rec.method === 'POST' && FLOW_START[vendor].includes(rec.path);
    if (first) state.clear();
    fake.requests.push(rec);
    let reply: Reply;
    try {
      if (first && fake.mode === 'hang') reply = 'hang';
      else if (first && fake.mode === '401') reply = { status: 401, body: AUTH_ERRORS[vendor] };
      else if (first && fake.mode === '429') reply = { status: 429, body: { error: { message: 'Too many requests, slow down' } } };
      else if (first && fake.mode === '500') reply = { status: 500, body: { error: { message: 'internal failure' } } };
      else if (first && fake.mode === '413') reply = { status: 413, body: { error: 'Payload too large' } };
      else if (first && fake.mode === 'malformed') reply = { status: 200, body: '<html>gateway says hi</html>' };
      else reply = await HANDLERS[vendor](rec, fake, state);
    } catch (err) {
      if (!(err instanceof Violation)) throw err;
      fake.violations.push(err.message);
      reply = { status: 400, body: { error: { message: `fake ${vendor}: ${err.message}` } } };
    }
    if (reply === 'hang') {
      hanging.add(res);
      return;
    }
    const send = () => {
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': typeof reply.body === 'string' ? 'text/html' : 'application/json' }).end(text);
    };
    if (first && fake.delayMs > 0) setTimeout(send, fake.delayMs);
    else send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
