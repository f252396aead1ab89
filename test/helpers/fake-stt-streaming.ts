/**
 * Loopback fakes of the vendors' live (WebSocket) APIs, as strict as the vendors: a wrong path, key,
 * query parameter, audio framing or control message is refused the way the vendor refuses it (HTTP
 * status on the handshake, close code after) and recorded in `violations`. Each answers a SCRIPT:
 * results sent a set delay after the fake has received a set amount of audio (or after the end of
 * the stream), so a test knows the true latencies. The fake stamps what it heard and sent on the same
 * monotonic clock as the code under test (same process), so a test can also compare against what the
 * fake actually did on a loaded machine.
 *
 * Rules written out from the vendor's documentation again on purpose (not imported from the adapters):
 * the fakes are the oracle the adapters are checked against.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';

/** One scripted answer. */
export interface ScriptedResult {
  /** Sent once this much audio (ms) has arrived; `'end'`: once the client ends the stream. */
  afterAudioMs: number | 'end';
  /** ... this much later (ms). */
  delayMs: number;
  kind: 'partial' | 'final';
  text: string;
  /** Word times (seconds from the stream's start); default: none. */
  words?: { word: string; start: number; end: number }[];
}

/**
 * Failure modes. Hostile ones (DESIGN §17.5; Deepgram's fake only): `partials-forever` sends a partial every
 * 100 ms from the first frame on and never ends the stream; `flood` does so with a 32 KB partial every 1 ms;
 * `huge-message` sends one 5 MB `Results` message at the fifth frame, then answers its script.
 */
export type StreamFakeMode = 'ok' | 'stall' | 'drop' | 'malformed' | 'error-message' | 'partials-forever' | 'flood' | 'huge-message';

/** What the fake saw of one stream. */
export interface FakeStreamRecord {
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Monotonic receipt time of each audio frame and the audio (ms) received by then. */
  frames: { at: number; audioMs: number }[];
  /** Text messages received. */
  controls: string[];
  /** Each scripted result: when its trigger was heard and when it was actually sent. */
  sent: { index: number; heardAt: number; sentAt: number }[];
  closedWith?: number;
}

export interface FakeStreamingVendor {
  url: string;
  key: string;
  mode: StreamFakeMode;
  script: ScriptedResult[];
  streams: FakeStreamRecord[];
  violations: string[];
  close(): Promise<void>;
}

/** Fires a stream's scripted results: each once its audio has arrived, after its delay; records what it did. */
function scriptRunner(opts: { fake: FakeStreamingVendor; rec: FakeStreamRecord; bytesPerMs: number; send: (i: number) => void; stall: boolean; onIdle: () => void }) {
  const fired = new Set<number>();
  const timers = new Set<NodeJS.Timeout>();
  let pending = 0;
  return {
    get pending() {
      return pending;
    },
    trigger(heardAt: number, audioBytes: number, ended: boolean) {
      const audioMs = audioBytes / opts.bytesPerMs;
      opts.fake.script.forEach((s, i) => {
        if (fired.has(i)) return;
        if (s.afterAudioMs === 'end' ? !ended : audioMs < s.afterAudioMs) return;
        fired.add(i);
        if (opts.stall && s.afterAudioMs === 'end') return;
        pending++;
        const t = setTimeout(() => {
          timers.delete(t);
          pending--;
          opts.rec.sent.push({ index: i, heardAt, sentAt: performance.now() });
          opts.send(i);
          opts.onIdle();
        }, Math.max(0, heardAt + s.delayMs - performance.now()));
        timers.add(t);
      });
    },
    stop() {
      for (const t of timers) clearTimeout(t);
    },
  };
}

const refuse = (socket: Socket, status: number, body: object) => {
  const text = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
};

/** Listens on loopback and wires `onUpgrade`; returns the fake with its url and close. */
async function listenFake(
  fake: FakeStreamingVendor,
  onUpgrade: (wss: WebSocketServer, req: IncomingMessage, socket: Socket, head: Buffer) => void,
  onRequest?: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void,
): Promise<FakeStreamingVendor> {
  const server: Server = createServer((req, res) => {
    if (!onRequest) return void res.writeHead(426).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => onRequest(req, Buffer.concat(chunks), res));
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => onUpgrade(wss, req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}

/** AssemblyAI v3 streaming query keys (Streaming API reference). */
const ASSEMBLYAI_V3_KEYS = ['sample_rate', 'encoding', 'speech_model', 'format_turns', 'keyterms_prompt', 'end_of_turn_confidence_threshold', 'min_end_of_turn_silence_when_confident', 'max_turn_silence', 'token', 'inactivity_timeout', 'language_detection', 'vad_threshold'];
const ASSEMBLYAI_MODELS = ['universal-streaming-english', 'universal-streaming-multilingual', 'u3-rt-pro'];

/**
 * A fake of AssemblyAI's Universal-Streaming v3 (`/v3/ws`): `Begin` first; audio chunks must hold
 * 50..1000 ms (else close 3007); a partial is a `Turn` with `end_of_turn:false`; a final is sent as the
 * unformatted then the formatted end of turn; `Terminate` → `Termination` and close 1000.
 */
export async function startFakeAssemblyAiLive(opts: { key?: string; mode?: StreamFakeMode; script?: ScriptedResult[] } = {}): Promise<FakeStreamingVendor> {
  const fake: FakeStreamingVendor = { url: '', key: opts.key ?? 'aai-test-key', mode: opts.mode ?? 'ok', script: opts.script ?? [], streams: [], violations: [], close: async () => undefined };
  return listenFake(fake, (wss, req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/v3/ws') {
      fake.violations.push(`path ${url.pathname}`);
      refuse(socket, 404, { error: 'Not found' });
      return;
    }
    if (req.headers.authorization !== fake.key) {
      fake.violations.push('auth');
      refuse(socket, 401, { error: 'Invalid API key' });
      return;
    }
    const q = url.searchParams;
    const bad = [...q.keys()].find((k) => !ASSEMBLYAI_V3_KEYS.includes(k));
    const rate = Number(q.get('sample_rate'));
    const keyterms = q.get('keyterms_prompt');
    let keytermsOk = true;
    if (keyterms !== null) {
      try {
        keytermsOk = Array.isArray(JSON.parse(keyterms));
      } catch {
        keytermsOk = false;
      }
    }
    const problem = bad
      ? `unknown parameter ${bad}`
      : !(rate > 0)
        ? 'sample_rate is required'
        : !['pcm_s16le', 'pcm_mulaw', null].includes(q.get('encoding'))
          ? 'bad encoding'
          : !ASSEMBLYAI_MODELS.includes(q.get('speech_model') ?? '')
            ? 'speech_model is required'
            : !keytermsOk
              ? 'keyterms_prompt must be a JSON list'
              : undefined;
    if (problem) {
      fake.violations.push(problem);
      refuse(socket, 400, { error: problem });
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const rec: FakeStreamRecord = { query: q, headers: req.headers, frames: [], controls: [], sent: [] };
      fake.streams.push(rec);
      const bytesPerMs = (rate * 2) / 1000;
      let bytes = 0;
      let ended = false;
      let turn = 0;
      const finish = () => {
        if (!ended || runner.pending > 0 || fake.mode === 'stall' || ws.readyState !== ws.OPEN) return;
        ws.send(JSON.stringify({ type: 'Termination', audio_duration_seconds: bytes / bytesPerMs / 1000, session_duration_seconds: 1 }));
        ws.close(1000);
      };
      const runner = scriptRunner({
        fake,
        rec,
        bytesPerMs,
        stall: fake.mode === 'stall',
        onIdle: finish,
        send: (i) => {
          const s = fake.script[i] as ScriptedResult;
          if (ws.readyState !== ws.OPEN) return;
          const words = (s.words ?? []).map((w) => ({ text: w.word, start: Math.round(w.start * 1000), end: Math.round(w.end * 1000), confidence: 0.9, word_is_final: s.kind === 'final' }));
          const base = { type: 'Turn', turn_order: turn, end_of_turn_confidence: 0.5, transcript: s.text, words };
          if (s.kind === 'partial') ws.send(JSON.stringify({ ...base, end_of_turn: false, turn_is_formatted: false }));
          else {
            ws.send(JSON.stringify({ ...base, transcript: s.text.toLowerCase().replace(/[.,!?]/g, ''), end_of_turn: true, turn_is_formatted: false }));
            ws.send(JSON.stringify({ ...base, end_of_turn: true, turn_is_formatted: true }));
            turn++;
          }
        },
      });
      ws.send(JSON.stringify({ type: 'Begin', id: 'fake-session', expires_at: Math.floor(Date.now() / 1000) + 3600 }));
      ws.on('message', (data: RawData, isBinary: boolean) => {
        const at = performance.now();
        const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
        if (isBinary) {
          const ms = buf.length / bytesPerMs;
          if (ended || ms < 50 || ms > 1000 || buf.length % 2 !== 0) {
            fake.violations.push(`audio chunk of ${ms} ms`);
            ws.close(3007, 'Audio chunk duration violation');
            return;
          }
          bytes += buf.length;
          rec.frames.push({ at, audioMs: bytes / bytesPerMs });
          if (fake.mode === 'malformed' && rec.frames.length === 3) ws.send('not json');
          else if (fake.mode === 'error-message' && rec.frames.length === 3) {
            ws.send(JSON.stringify({ error: 'Input validation error' }));
            ws.close(3006);
          } else if (fake.mode === 'drop' && rec.frames.length === 3) ws.close(3005);
          else runner.trigger(at, bytes, ended);
          return;
        }
        const text = buf.toString('utf8');
        rec.controls.push(text);
        let msg: { type?: unknown };
        try {
          msg = JSON.parse(text) as { type?: unknown };
        } catch {
          fake.violations.push('non-JSON text message');
          ws.close(3006, 'Input validation error');
          return;
        }
        if (msg.type === 'KeepAlive' || msg.type === 'ForceEndpoint' || msg.type === 'UpdateConfiguration') return;
        if (msg.type !== 'Terminate') {
          fake.violations.push(`unknown message ${String(msg.type)}`);
          ws.close(3006, 'Input validation error');
          return;
        }
        ended = true;
        runner.trigger(at, bytes, ended);
        finish();
      });
      ws.on('close', (code) => {
        rec.closedWith = code;
        runner.stop();
      });
    });
  });
}

const SM_CONFIG_KEYS = ['language', 'enable_partials', 'model', 'operating_point', 'max_delay', 'max_delay_mode', 'additional_vocab', 'diarization', 'output_locale', 'punctuation_overrides', 'enable_entities', 'conversation_config', 'domain', 'speaker_diarization_config'];

/**
 * A fake of Speechmatics real-time (`/v2`): `StartRecognition` first (answered `RecognitionStarted`),
 * binary audio acked by `AudioAdded`, `AddPartialTranscript`/`AddTranscript`, `EndOfStream` with the
 * right `last_seq_no` → `EndOfTranscript`, after which the client is expected to close. Violations are
 * answered with `{"message":"Error"}` and close 1011 (the vendor's `invalid_message`).
 */
export async function startFakeSpeechmaticsLive(opts: { key?: string; mode?: StreamFakeMode; script?: ScriptedResult[] } = {}): Promise<FakeStreamingVendor> {
  const fake: FakeStreamingVendor = { url: '', key: opts.key ?? 'sm-test-key', mode: opts.mode ?? 'ok', script: opts.script ?? [], streams: [], violations: [], close: async () => undefined };
  return listenFake(fake, (wss, req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/v2') {
      fake.violations.push(`path ${url.pathname}`);
      refuse(socket, 404, { message: 'Not found' });
      return;
    }
    if (req.headers.authorization !== `Bearer ${fake.key}`) {
      fake.violations.push('auth');
      refuse(socket, 401, { message: 'Unauthorized', detail: 'Invalid API key' });
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const rec: FakeStreamRecord = { query: url.searchParams, headers: req.headers, frames: [], controls: [], sent: [] };
      fake.streams.push(rec);
      let bytesPerMs = 0;
      let started = false;
      let bytes = 0;
      let seq = 0;
      let ended = false;
      const error = (type: string, reason: string) => {
        fake.violations.push(`${type}: ${reason}`);
        ws.send(JSON.stringify({ message: 'Error', type, reason }));
        ws.close(1011);
      };
      const finish = () => {
        if (!ended || runner.pending > 0 || fake.mode === 'stall' || ws.readyState !== ws.OPEN) return;
        ws.send(JSON.stringify({ message: 'EndOfTranscript' }));
        setTimeout(() => {
          if (ws.readyState === ws.OPEN) {
            fake.violations.push('client did not close after EndOfTranscript');
            ws.close(1000);
          }
        }, 2000).unref();
      };
      const result = (s: ScriptedResult) => {
        const words = s.words ?? s.text.split(/\s+/).filter(Boolean).map((w) => ({ word: w, start: 0, end: 0 }));
        return {
          message: s.kind === 'final' ? 'AddTranscript' : 'AddPartialTranscript',
          format: '2.9',
          metadata: { transcript: s.text, start_time: words[0]?.start ?? 0, end_time: words.at(-1)?.end ?? 0 },
          results: words.map((w) => ({ type: 'word', start_time: w.start, end_time: w.end, alternatives: [{ content: w.word, confidence: 0.9, language: 'en' }] })),
        };
      };
      const runner = scriptRunner({
        fake,
        rec,
        get bytesPerMs() {
          return bytesPerMs;
        },
        stall: fake.mode === 'stall',
        onIdle: finish,
        send: (i) => {
          if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(result(fake.script[i] as ScriptedResult)));
        },
      });
      ws.on('message', (data: RawData, isBinary: boolean) => {
        const at = performance.now();
        const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
        if (isBinary) {
          if (!started || ended) return error('protocol_error', 'audio outside a recognition');
          if (buf.length % 2 !== 0) return error('invalid_audio_type', 'odd-length pcm_s16le frame');
          bytes += buf.length;
          seq++;
          rec.frames.push({ at, audioMs: bytes / bytesPerMs });
          ws.send(JSON.stringify({ message: 'AudioAdded', seq_no: seq }));
          if (fake.mode === 'malformed' && seq === 5) ws.send('{"message": ');
          else if (fake.mode === 'error-message' && seq === 5) {
            ws.send(JSON.stringify({ message: 'Error', type: 'internal_error', reason: 'fake failure' }));
            ws.close(1011);
          } else if (fake.mode === 'drop' && seq === 5) ws.close(1011, 'internal error');
          else runner.trigger(at, bytes, ended);
          return;
        }
        const text = buf.toString('utf8');
        rec.controls.push(text);
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(text) as Record<string, unknown>;
        } catch {
          return error('invalid_message', 'not JSON');
        }
        if (!started) {
          if (msg.message !== 'StartRecognition') return error('invalid_message', `expected StartRecognition, got ${String(msg.message)}`);
          const af = msg.audio_format as Record<string, unknown> | undefined;
          const tc = msg.transcription_config as Record<string, unknown> | undefined;
          if (!af || af.type !== 'raw' || af.encoding !== 'pcm_s16le' || !Number.isInteger(af.sample_rate)) return error('invalid_audio_type', 'audio_format');
          if (!tc || typeof tc.language !== 'string' || !/^[a-z]{2,3}$/.test(tc.language)) return error('invalid_model', 'transcription_config.language');
          const unknown = Object.keys(tc).find((k) => !SM_CONFIG_KEYS.includes(k));
          if (unknown) return error('invalid_message', `unknown transcription_config.${unknown}`);
          bytesPerMs = ((af.sample_rate as number) * 2) / 1000;
          started = true;
          ws.send(JSON.stringify({ message: 'RecognitionStarted', id: 'fake', orchestrator_version: 'fake' }));
          return;
        }
        if (msg.message !== 'EndOfStream') return error('invalid_message', `unexpected ${String(msg.message)}`);
        if (msg.last_seq_no !== seq) return error('invalid_message', `last_seq_no ${String(msg.last_seq_no)} but ${seq} chunks received`);
        ended = true;
        runner.trigger(at, bytes, ended);
        finish();
      });
      ws.on('close', (code) => {
        rec.closedWith = code;
        runner.stop();
      });
    });
  });
}

const GLADIA_INIT_KEYS = ['encoding', 'bit_depth', 'sample_rate', 'channels', 'custom_metadata', 'model', 'endpointing', 'maximum_duration_without_endpointing', 'language_config', 'pre_processing', 'realtime_processing', 'post_processing', 'messages_config', 'callback', 'callback_config'];
const GLADIA_RATES = [8000, 16000, 32000, 44100, 48000];

/**
 * A fake of Gladia live v2: `POST /v2/live` (header `x-gladia-key`, the `LiveV2InitRequest` fields only)
 * answers `{id, url}`; the WebSocket at that url (its token checked) takes binary PCM, answers
 * `transcript` messages, and on `{"type":"stop_recording"}` acknowledges, sends what is left and closes 1000.
 */
export async function startFakeGladiaLive(opts: { key?: string; mode?: StreamFakeMode; script?: ScriptedResult[] } = {}): Promise<FakeStreamingVendor> {
  const fake: FakeStreamingVendor = { url: '', key: opts.key ?? 'gladia-test-key', mode: opts.mode ?? 'ok', script: opts.script ?? [], streams: [], violations: [], close: async () => undefined };
  const sessions = new Map<string, { rate: number; init: Record<string, unknown> }>();
  let n = 0;
  const json = (res: ServerResponse, status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  return listenFake(
    fake,
    (wss, req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const session = sessions.get(url.searchParams.get('token') ?? '');
      if (url.pathname !== '/v2/live' || !session) {
        fake.violations.push(`websocket ${url.pathname} token ${url.searchParams.get('token')}`);
        refuse(socket, 401, { message: 'invalid token' });
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const rec: FakeStreamRecord = { query: new URLSearchParams(Object.entries(session.init).map(([k, v]): [string, string] => [k, JSON.stringify(v)])), headers: req.headers, frames: [], controls: [], sent: [] };
        fake.streams.push(rec);
        const bytesPerMs = (session.rate * 2) / 1000;
        let bytes = 0;
        let ended = false;
        const finish = () => {
          if (!ended || runner.pending > 0 || fake.mode === 'stall' || ws.readyState !== ws.OPEN) return;
          ws.send(JSON.stringify({ type: 'end_recording', session_id: 'fake', data: { recording_duration: bytes / bytesPerMs / 1000 } }));
          ws.close(1000);
        };
        const runner = scriptRunner({
          fake,
          rec,
          bytesPerMs,
          stall: fake.mode === 'stall',
          onIdle: finish,
          send: (i) => {
            const sc = fake.script[i] as ScriptedResult;
            if (ws.readyState !== ws.OPEN) return;
            const words = (sc.words ?? []).map((w) => ({ word: ` ${w.word}`, start: w.start, end: w.end, confidence: 0.9 }));
            ws.send(JSON.stringify({ type: 'transcript', session_id: 'fake', created_at: new Date().toISOString(), data: { id: `u${i}`, is_final: sc.kind === 'final', utterance: { text: ` ${sc.text}`, start: 0, end: 0, confidence: 0.9, channel: 0, words, language: 'en' } } }));
          },
        });
        ws.on('message', (data: RawData, isBinary: boolean) => {
          const at = performance.now();
          const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
          if (isBinary) {
            if (ended || buf.length % 2 !== 0) {
              fake.violations.push('audio after stop_recording or odd-length frame');
              ws.close(4400, 'invalid audio');
              return;
            }
            bytes += buf.length;
            rec.frames.push({ at, audioMs: bytes / bytesPerMs });
            if (fake.mode === 'malformed' && rec.frames.length === 5) ws.send('{{');
            else if (fake.mode === 'error-message' && rec.frames.length === 5) {
              ws.send(JSON.stringify({ type: 'error', session_id: 'fake', error: { message: 'fake failure' } }));
              ws.close(1011);
            } else if (fake.mode === 'drop' && rec.frames.length === 5) ws.close(1011, 'internal error');
            else runner.trigger(at, bytes, ended);
            return;
          }
          const text = buf.toString('utf8');
          rec.controls.push(text);
          let msg: { type?: unknown };
          try {
            msg = JSON.parse(text) as { type?: unknown };
          } catch {
            fake.violations.push('non-JSON text message');
            ws.close(4400, 'invalid message');
            return;
          }
          if (msg.type !== 'stop_recording') {
            fake.violations.push(`unknown message ${String(msg.type)}`);
            ws.close(4400, 'invalid message');
            return;
          }
          ended = true;
          ws.send(JSON.stringify({ type: 'stop_recording', acknowledged: true, session_id: 'fake', data: { recording_duration: bytes / bytesPerMs / 1000, recording_left_to_process: 0 } }));
          runner.trigger(at, bytes, ended);
          finish();
        });
        ws.on('close', (code) => {
          rec.closedWith = code;
          runner.stop();
        });
      });
    },
    (req, body, res) => {
      if (req.method !== 'POST' || req.url !== '/v2/live') {
        fake.violations.push(`${req.method} ${req.url}`);
        return json(res, 404, { message: 'Not found' });
      }
      if (req.headers['x-gladia-key'] !== fake.key) {
        fake.violations.push('auth');
        return json(res, 401, { statusCode: 401, message: 'Invalid or missing api key' });
      }
      let init: Record<string, unknown>;
      try {
        init = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        fake.violations.push('init body not JSON');
        return json(res, 400, { statusCode: 400, message: 'Invalid JSON' });
      }
      const unknown = Object.keys(init).find((k) => !GLADIA_INIT_KEYS.includes(k));
      const problem = unknown
        ? `property ${unknown} should not exist`
        : init.encoding !== 'wav/pcm' || init.bit_depth !== 16
          ? 'encoding must be wav/pcm with bit_depth 16'
          : !GLADIA_RATES.includes(init.sample_rate as number)
            ? 'sample_rate must be one of 8000, 16000, 32000, 44100, 48000'
            : init.channels !== 1
              ? 'channels must be 1'
              : undefined;
      if (problem) {
        fake.violations.push(problem);
        return json(res, 400, { statusCode: 400, message: problem });
      }
      const token = `tok${++n}`;
      sessions.set(token, { rate: init.sample_rate as number, init });
      const host = req.headers.host;
      return json(res, 201, { id: `session-${n}`, created_at: new Date().toISOString(), url: `ws://${host}/v2/live?token=${token}` });
    },
  );
}

const REVAI_KEYS = ['access_token', 'content_type', 'user_agent', 'metadata', 'custom_vocabulary_id', 'filter_profanity', 'remove_disfluencies', 'delete_after_seconds', 'detailed_partials', 'start_ts', 'transcriber', 'language', 'skip_postprocessing', 'priority', 'max_segment_duration_seconds', 'max_connection_wait_seconds'];

/**
 * A fake of Rev.ai streaming (`/speechtotext/v1/stream`): the key in `access_token` (a wrong one closes
 * 4001 after the upgrade), raw audio described by `content_type`, `connected` first, `partial`/`final`
 * hypotheses, the text frame `EOS` → the last final, close 1000.
 */
export async function startFakeRevAiLive(opts: { key?: string; mode?: StreamFakeMode; script?: ScriptedResult[] } = {}): Promise<FakeStreamingVendor> {
  const fake: FakeStreamingVendor = { url: '', key: opts.key ?? 'revai-test-key', mode: opts.mode ?? 'ok', script: opts.script ?? [], streams: [], violations: [], close: async () => undefined };
  return listenFake(fake, (wss, req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/speechtotext/v1/stream') {
      fake.violations.push(`path ${url.pathname}`);
      refuse(socket, 404, { title: 'Not found' });
      return;
    }
    const q = url.searchParams;
    const bad = [...q.keys()].find((k) => !REVAI_KEYS.includes(k));
    const ct = /^audio\/x-raw;layout=interleaved;rate=(\d+);format=S16LE;channels=1$/.exec(q.get('content_type') ?? '');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const rec: FakeStreamRecord = { query: q, headers: req.headers, frames: [], controls: [], sent: [] };
      fake.streams.push(rec);
      if (q.get('access_token') !== fake.key) {
        fake.violations.push('auth');
        ws.close(4001, 'Unauthorized');
        return;
      }
      if (bad || !ct) {
        fake.violations.push(bad ? `unknown parameter ${bad}` : `content_type ${q.get('content_type')}`);
        ws.close(4002, 'Bad request');
        return;
      }
      const bytesPerMs = (Number(ct[1]) * 2) / 1000;
      let bytes = 0;
      let ended = false;
      const finish = () => {
        if (!ended || runner.pending > 0 || fake.mode === 'stall' || ws.readyState !== ws.OPEN) return;
        ws.close(1000, 'End of input. Closing');
      };
      const runner = scriptRunner({
        fake,
        rec,
        bytesPerMs,
        stall: fake.mode === 'stall',
        onIdle: finish,
        send: (i) => {
          const sc = fake.script[i] as ScriptedResult;
          if (ws.readyState !== ws.OPEN) return;
          const words = sc.words ?? sc.text.split(/\s+/).filter(Boolean).map((w) => ({ word: w, start: 0, end: 0 }));
          const elements = words.flatMap((w, k) => [
            ...(k ? [{ type: sc.kind === 'final' ? 'punct' : 'text', value: ' ' }] : []),
            { type: 'text', value: w.word, ts: w.start, end_ts: w.end, ...(sc.kind === 'final' ? { confidence: 0.9 } : {}) },
          ]);
          ws.send(JSON.stringify({ type: sc.kind, ts: words[0]?.start ?? 0, end_ts: words.at(-1)?.end ?? 0, elements: elements.filter((e) => sc.kind === 'final' || e.value !== ' ') }));
        },
      });
      ws.send(JSON.stringify({ type: 'connected', id: 'fake-job' }));
      ws.on('message', (data: RawData, isBinary: boolean) => {
        const at = performance.now();
        const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
        if (isBinary) {
          if (ended || buf.length % 2 !== 0) {
            fake.violations.push('audio after EOS or odd-length frame');
            ws.close(4002, 'Bad request');
            return;
          }
          bytes += buf.length;
          rec.frames.push({ at, audioMs: bytes / bytesPerMs });
          if (fake.mode === 'malformed' && rec.frames.length === 5) ws.send('<html>');
          else if (fake.mode === 'drop' && rec.frames.length === 5) ws.close(4003, 'Insufficient credits');
          else runner.trigger(at, bytes, ended);
          return;
        }
        const text = buf.toString('utf8');
        rec.controls.push(text);
        if (text !== 'EOS') {
          fake.violations.push(`unknown text frame ${text.slice(0, 40)}`);
          ws.close(4002, 'Bad request');
          return;
        }
        ended = true;
        runner.trigger(at, bytes, ended);
        finish();
      });
      ws.on('close', (code) => {
        rec.closedWith = code;
        runner.stop();
      });
    });
  });
}

const ELEVENLABS_KEYS = ['model_id', 'audio_format', 'commit_strategy', 'language_code', 'include_timestamps', 'include_language_detection', 'vad_silence_threshold_secs', 'vad_threshold', 'min_speech_duration_ms', 'min_silence_duration_ms', 'enable_logging', 'keyterms', 'no_verbatim'];

/**
 * A fake of ElevenLabs Scribe realtime (`/v1/speech-to-text/realtime`): header `xi-api-key` (a wrong one
 * gets an `auth_error` message and close), `session_started` first, base64 `input_audio_chunk` messages
 * of the declared rate, `partial_transcript`, and with `commit_strategy=manual` one `committed_transcript`
 * per commit; the client is expected to close after it.
 */
export async function startFakeElevenLabsLive(opts: { key?: string; mode?: StreamFakeMode; script?: ScriptedResult[] } = {}): Promise<FakeStreamingVendor> {
  const fake: FakeStreamingVendor = { url: '', key: opts.key ?? 'xi-test-key', mode: opts.mode ?? 'ok', script: opts.script ?? [], streams: [], violations: [], close: async () => undefined };
  return listenFake(fake, (wss, req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/v1/speech-to-text/realtime') {
      fake.violations.push(`path ${url.pathname}`);
      refuse(socket, 404, { detail: 'Not Found' });
      return;
    }
    const q = url.searchParams;
    const bad = [...q.keys()].find((k) => !ELEVENLABS_KEYS.includes(k));
    const fmt = /^pcm_(\d+)$/.exec(q.get('audio_format') ?? '');
    if (bad || !fmt || !/^scribe_v2_realtime$/.test(q.get('model_id') ?? '') || !['manual', 'vad', null].includes(q.get('commit_strategy'))) {
      fake.violations.push(bad ? `unknown parameter ${bad}` : 'model_id, audio_format or commit_strategy');
      refuse(socket, 400, { detail: { status: 'invalid_request', message: 'invalid parameters' } });
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const rec: FakeStreamRecord = { query: q, headers: req.headers, frames: [], controls: [], sent: [] };
      fake.streams.push(rec);
      if (req.headers['xi-api-key'] !== fake.key) {
        fake.violations.push('auth');
        ws.send(JSON.stringify({ message_type: 'auth_error', error: 'Invalid API key' }));
        ws.close(1008, 'auth_error');
        return;
      }
      const rate = Number(fmt[1]);
      const bytesPerMs = (rate * 2) / 1000;
      let bytes = 0;
      let ended = false;
      let uncommitted = '';
      const finish = () => {
        if (!ended || runner.pending > 0 || fake.mode === 'stall' || ws.readyState !== ws.OPEN) return;
        ws.send(JSON.stringify({ message_type: 'committed_transcript', text: uncommitted }));
        setTimeout(() => {
          if (ws.readyState === ws.OPEN) {
            fake.violations.push('client did not close after committed_transcript');
            ws.close(1000);
          }
        }, 2000).unref();
      };
      const runner = scriptRunner({
        fake,
        rec,
        bytesPerMs,
        stall: fake.mode === 'stall',
        onIdle: finish,
        send: (i) => {
          const sc = fake.script[i] as ScriptedResult;
          if (ws.readyState !== ws.OPEN) return;
          // Manual commits: every scripted result is uncommitted text until the client commits.
          uncommitted = sc.text;
          ws.send(JSON.stringify({ message_type: sc.kind === 'final' ? 'final_transcript' : 'partial_transcript', text: sc.text }));
        },
      });
      ws.send(JSON.stringify({ message_type: 'session_started', session_id: 'fake', config: { sample_rate: rate, audio_format: `pcm_${rate}`, commit_strategy: q.get('commit_strategy') ?? 'manual', model_id: q.get('model_id') } }));
      ws.on('message', (data: RawData, isBinary: boolean) => {
        const at = performance.now();
        const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer)).toString('utf8');
        let msg: { message_type?: unknown; audio_base_64?: unknown; commit?: unknown; sample_rate?: unknown };
        try {
          if (isBinary) throw new Error('binary');
          msg = JSON.parse(text) as typeof msg;
        } catch {
          fake.violations.push('not a JSON text message');
          ws.send(JSON.stringify({ message_type: 'input_error', error: 'Invalid message' }));
          ws.close(1008);
          return;
        }
        if (msg.message_type !== 'input_audio_chunk' || typeof msg.audio_base_64 !== 'string' || typeof msg.commit !== 'boolean' || msg.sample_rate !== rate || ended) {
          fake.violations.push(`bad message ${text.slice(0, 60)}`);
          ws.send(JSON.stringify({ message_type: 'input_error', error: 'Invalid message' }));
          ws.close(1008);
          return;
        }
        const audio = Buffer.from(msg.audio_base_64, 'base64');
        rec.controls.push(audio.length ? 'audio' : `commit:${String(msg.commit)}`);
        if (audio.length) {
          bytes += audio.length;
          rec.frames.push({ at, audioMs: bytes / bytesPerMs });
        }
        if (fake.mode === 'malformed' && rec.frames.length === 5 && audio.length) ws.send('nope');
        else if (fake.mode === 'error-message' && rec.frames.length === 5 && audio.length) {
          ws.send(JSON.stringify({ message_type: 'quota_exceeded', error: 'Quota exceeded' }));
          ws.close(1008);
        } else if (fake.mode === 'drop' && rec.frames.length === 5 && audio.length) ws.close(1011, 'internal error');
        else {
          if (msg.commit) ended = true;
          runner.trigger(at, bytes, ended);
          if (msg.commit) finish();
        }
      });
      ws.on('close', (code) => {
        rec.closedWith = code;
        runner.stop();
      });
    });
  });
}

const OPENAI_TRANSCRIPTION_MODELS = ['gpt-4o-transcribe', 'gpt-4o-mini-transcribe', 'whisper-1'];

/**
 * A fake of OpenAI Realtime transcription (`/v1/realtime?intent=transcription`): Bearer key and
 * `OpenAI-Beta: realtime=v1`; `transcription_session.update` first (pcm16, a transcription model);
 * `input_audio_buffer.append` with base64 audio; each scripted final is one committed turn: its partial
 * scripts come as `…delta` events, the final as `…completed`; `input_audio_buffer.commit` at the end
 * commits the rest (or answers `input_audio_buffer_commit_empty`). The client is expected to close.
 */
export async function startFakeOpenAiRealtime(opts: { key?: string; mode?: StreamFakeMode; script?: ScriptedResult[] } = {}): Promise<FakeStreamingVendor> {
  const fake: FakeStreamingVendor = { url: '', key: opts.key ?? 'sk-test', mode: opts.mode ?? 'ok', script: opts.script ?? [], streams: [], violations: [], close: async () => undefined };
  return listenFake(fake, (wss, req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/v1/realtime' || url.searchParams.get('intent') !== 'transcription') {
      fake.violations.push(`path ${req.url}`);
      refuse(socket, 404, { error: { message: 'Not found', type: 'invalid_request_error' } });
      return;
    }
    if (req.headers.authorization !== `Bearer ${fake.key}`) {
      fake.violations.push('auth');
      refuse(socket, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      return;
    }
    if (req.headers['openai-beta'] !== 'realtime=v1') fake.violations.push('missing OpenAI-Beta: realtime=v1');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const rec: FakeStreamRecord = { query: url.searchParams, headers: req.headers, frames: [], controls: [], sent: [] };
      fake.streams.push(rec);
      const bytesPerMs = (24000 * 2) / 1000;
      let configured = false;
      let bytes = 0;
      let ended = false;
      let item = 0;
      let sinceCommit = 0;
      let partial = '';
      const error = (message: string, code = 'invalid_value') => {
        fake.violations.push(message);
        ws.send(JSON.stringify({ type: 'error', event_id: 'e', error: { type: 'invalid_request_error', code, message } }));
      };
      const runner = scriptRunner({
        fake,
        rec,
        bytesPerMs,
        stall: fake.mode === 'stall',
        onIdle: () => undefined,
        send: (i) => {
          const sc = fake.script[i] as ScriptedResult;
          if (ws.readyState !== ws.OPEN) return;
          const id = `item_${item}`;
          if (sc.kind === 'partial') {
            const delta = sc.text.startsWith(partial) ? sc.text.slice(partial.length) : sc.text;
            partial = sc.text;
            ws.send(JSON.stringify({ type: 'conversation.item.input_audio_transcription.delta', event_id: 'e', item_id: id, content_index: 0, delta }));
          } else {
            ws.send(JSON.stringify({ type: 'input_audio_buffer.committed', event_id: 'e', previous_item_id: null, item_id: id }));
            ws.send(JSON.stringify({ type: 'conversation.item.input_audio_transcription.completed', event_id: 'e', item_id: id, content_index: 0, transcript: sc.text }));
            item++;
            partial = '';
            sinceCommit = 0;
          }
        },
      });
      ws.send(JSON.stringify({ type: 'transcription_session.created', event_id: 'e', session: { id: 'sess' } }));
      ws.on('message', (data: RawData, isBinary: boolean) => {
        const at = performance.now();
        const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer)).toString('utf8');
        let msg: { type?: unknown; audio?: unknown; session?: { input_audio_format?: unknown; input_audio_transcription?: { model?: unknown } } };
        try {
          if (isBinary) throw new Error('binary');
          msg = JSON.parse(text) as typeof msg;
        } catch {
          return error('The server could not parse the message as JSON', 'invalid_json');
        }
        if (msg.type === 'transcription_session.update') {
          rec.controls.push(text);
          if (msg.session?.input_audio_format !== 'pcm16' || !OPENAI_TRANSCRIPTION_MODELS.includes(String(msg.session?.input_audio_transcription?.model))) return error('Invalid session');
          configured = true;
          ws.send(JSON.stringify({ type: 'transcription_session.updated', event_id: 'e', session: msg.session }));
          return;
        }
        if (!configured) return error(`${String(msg.type)} before transcription_session.update`);
        if (msg.type === 'input_audio_buffer.append') {
          if (typeof msg.audio !== 'string' || ended) return error('Invalid audio');
          const audio = Buffer.from(msg.audio, 'base64');
          bytes += audio.length;
          sinceCommit += audio.length;
          rec.frames.push({ at, audioMs: bytes / bytesPerMs });
          if (fake.mode === 'malformed' && rec.frames.length === 5) ws.send('oops');
          else if (fake.mode === 'error-message' && rec.frames.length === 5) ws.send(JSON.stringify({ type: 'error', event_id: 'e', error: { type: 'server_error', code: 'server_error', message: 'The server had an error' } }));
          else if (fake.mode === 'drop' && rec.frames.length === 5) ws.close(1011, 'internal error');
          else runner.trigger(at, bytes, ended);
          return;
        }
        if (msg.type === 'input_audio_buffer.commit') {
          rec.controls.push(text);
          ended = true;
          // With no scripted answer to the end, the rest of the buffer is silence: an empty turn, or nothing to commit.
          if (fake.script.every((x) => x.afterAudioMs !== 'end') && fake.mode !== 'stall') {
            if (sinceCommit === 0) {
              ws.send(JSON.stringify({ type: 'error', event_id: 'e', error: { type: 'invalid_request_error', code: 'input_audio_buffer_commit_empty', message: 'Error committing input audio buffer: buffer too small.' } }));
            } else {
              const id = `item_${item++}`;
              ws.send(JSON.stringify({ type: 'input_audio_buffer.committed', event_id: 'e', previous_item_id: null, item_id: id }));
              ws.send(JSON.stringify({ type: 'conversation.item.input_audio_transcription.completed', event_id: 'e', item_id: id, content_index: 0, transcript: '' }));
            }
          }
          runner.trigger(at, bytes, ended);
          return;
        }
        error(`unknown event ${String(msg.type)}`);
      });
      ws.on('close', (code) => {
        rec.closedWith = code;
        runner.stop();
      });
    });
  });
}

/** Deepgram's `LiveSchema` query keys (deepgram-js-sdk TranscriptionSchema.ts) plus the newer `keyterm`. */
const DEEPGRAM_LIVE_KEYS = [
  'model', 'version', 'language', 'punctuate', 'profanity_filter', 'redact', 'diarize', 'diarize_version', 'smart_format', 'filler_words',
  'multichannel', 'numerals', 'search', 'replace', 'callback', 'callback_method', 'keywords', 'keyterm', 'tag', 'dictation', 'measurements',
  'channels', 'encoding', 'sample_rate', 'endpointing', 'interim_results', 'utterance_end_ms', 'vad_events', 'no_delay', 'mip_opt_out', 'extra',
];
const DEEPGRAM_ENCODINGS = ['linear16', 'linear32', 'flac', 'alaw', 'mulaw', 'amr-nb', 'amr-wb', 'opus', 'ogg-opus', 'speex', 'g729'];

/** Starts a fake of Deepgram's live API (`/v1/listen`) answering `script`. */
export async function startFakeDeepgramLive(opts: { key?: string; mode?: StreamFakeMode; script?: ScriptedResult[]; dropAfterAudioMs?: number } = {}): Promise<FakeStreamingVendor> {
  const fake: FakeStreamingVendor = {
    url: '',
    key: opts.key ?? 'dg-test-key',
    mode: opts.mode ?? 'ok',
    script: opts.script ?? [],
    streams: [],
    violations: [],
    close: async () => undefined,
  };
  const server: Server = createServer((_req, res) => {
    res.writeHead(426).end();
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const refuse = (socket: Socket, status: number, body: object) => {
    const text = JSON.stringify(body);
    socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
  };
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/v1/listen') {
      fake.violations.push(`path ${url.pathname}`);
      refuse(socket, 404, { err_code: 'NOT_FOUND', err_msg: 'Not found' });
      return;
    }
    if (req.headers.authorization !== `Token ${fake.key}`) {
      fake.violations.push('auth');
      refuse(socket, 401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.' });
      return;
    }
    const q = url.searchParams;
    const bad = [...q.keys()].find((k) => !DEEPGRAM_LIVE_KEYS.includes(k));
    const enc = q.get('encoding');
    const problem = bad
      ? `unknown parameter ${bad}`
      : enc === null || !DEEPGRAM_ENCODINGS.includes(enc)
        ? 'raw audio needs a valid encoding'
        : enc.startsWith('linear') && !/^\d+$/.test(q.get('sample_rate') ?? '')
          ? 'sample_rate is required with encoding'
          : q.get('channels') !== null && q.get('channels') !== '1'
            ? 'channels must match the audio'
            : undefined;
    if (problem) {
      fake.violations.push(problem);
      refuse(socket, 400, { err_code: 'Bad Request', err_msg: problem });
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req, q));
  });

  const serve = (ws: WebSocket, req: IncomingMessage, q: URLSearchParams) => {
    const rec: FakeStreamRecord = { query: q, headers: req.headers, frames: [], controls: [], sent: [] };
    fake.streams.push(rec);
    const rate = Number(q.get('sample_rate'));
    const bytesPerMs = (rate * 2) / 1000;
    let bytes = 0;
    let ended = false;
    let pending = 0;
    const fired = new Set<number>();
    const timers = new Set<NodeJS.Timeout>();
    const endless = fake.mode === 'partials-forever' || fake.mode === 'flood';
    let chatter: NodeJS.Timeout | undefined;
    const results = (kind: 'partial' | 'final', transcript: string) =>
      JSON.stringify({ type: 'Results', channel_index: [0, 1], duration: 0, start: 0, is_final: kind === 'final', speech_final: kind === 'final', channel: { alternatives: [{ transcript, confidence: 0.9, words: [] }] } });
    const finishIfDone = () => {
      if (!ended || pending > 0 || fake.mode === 'stall' || endless || ws.readyState !== ws.OPEN) return;
      ws.send(JSON.stringify({ type: 'Metadata', transaction_key: 'deprecated', request_id: 'fake', sha256: '', created: new Date().toISOString(), duration: bytes / bytesPerMs / 1000, channels: 1 }));
      ws.close(1000);
    };
    const sendResult = (i: number, heardAt: number) => {
      const s = fake.script[i] as ScriptedResult;
      const at = performance.now();
      rec.sent.push({ index: i, heardAt, sentAt: at });
      if (ws.readyState !== ws.OPEN) return;
      ws.send(
        JSON.stringify({
          type: 'Results',
          channel_index: [0, 1],
          duration: 0,
          start: 0,
          is_final: s.kind === 'final',
          speech_final: s.kind === 'final',
          channel: { alternatives: [{ transcript: s.text, confidence: 0.98, words: (s.words ?? []).map((w) => ({ word: w.word.toLowerCase(), punctuated_word: w.word, start: w.start, end: w.end, confidence: 0.98 })) }] },
          metadata: { request_id: 'fake', model_info: { name: 'fake', version: '0', arch: 'fake' }, model_uuid: 'fake' },
        }),
      );
    };
    const trigger = (heardAt: number) => {
      const audioMs = bytes / bytesPerMs;
      fake.script.forEach((s, i) => {
        if (fired.has(i)) return;
        if (s.afterAudioMs === 'end' ? !ended : audioMs < s.afterAudioMs) return;
        fired.add(i);
        if (fake.mode === 'stall' && s.afterAudioMs === 'end') return;
        pending++;
        const t = setTimeout(() => {
          timers.delete(t);
          pending--;
          sendResult(i, heardAt);
          finishIfDone();
        }, Math.max(0, heardAt + s.delayMs - performance.now()));
        timers.add(t);
      });
    };
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const at = performance.now();
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
      if (isBinary) {
        if (ended) {
          fake.violations.push('audio after CloseStream');
          return;
        }
        if (buf.length % 2 !== 0) {
          fake.violations.push('odd-length linear16 frame');
          ws.close(1008, 'DATA-0000');
          return;
        }
        bytes += buf.length;
        rec.frames.push({ at, audioMs: bytes / bytesPerMs });
        if (endless && !chatter) {
          const text = fake.mode === 'flood' ? 'la '.repeat((32 * 1024) / 3) : 'please';
          let n = 0;
          chatter = setInterval(
            () => {
              // Sends as fast as loopback takes it, never piling up more than 8 MB on its own side.
              if (ws.readyState === ws.OPEN && ws.bufferedAmount < 8 * 1024 * 1024) ws.send(results('partial', `${text} ${n++}`));
            },
            fake.mode === 'flood' ? 1 : 100,
          );
        }
        if (fake.mode === 'huge-message' && rec.frames.length === 5) ws.send(results('partial', 'la '.repeat((5 * 1024 * 1024) / 3)));
        if (fake.mode === 'drop' && bytes / bytesPerMs >= (opts.dropAfterAudioMs ?? 200)) {
          ws.close(1011, 'NET-0000');
          return;
        }
        if (fake.mode === 'malformed' && rec.frames.length === 5) {
          ws.send('{"type": "Results", oops');
          return;
        }
        if (fake.mode === 'error-message' && rec.frames.length === 5) {
          ws.send(JSON.stringify({ type: 'Error', description: 'Something went wrong', message: 'fake failure', variant: 'error' }));
          ws.close(1011);
          return;
        }
        trigger(at);
        return;
      }
      const text = buf.toString('utf8');
      rec.controls.push(text);
      let msg: { type?: unknown };
      try {
        msg = JSON.parse(text) as { type?: unknown };
      } catch {
        fake.violations.push(`non-JSON text message ${text.slice(0, 40)}`);
        ws.close(1008, 'DATA-0000');
        return;
      }
      if (msg.type === 'KeepAlive' || msg.type === 'Finalize') return;
      if (msg.type !== 'CloseStream') {
        fake.violations.push(`unknown control message ${String(msg.type)}`);
        ws.close(1008, 'DATA-0000');
        return;
      }
      ended = true;
      trigger(at);
      finishIfDone();
    });
    ws.on('close', (code) => {
      rec.closedWith = code;
      clearInterval(chatter);
      for (const t of timers) clearTimeout(t);
    });
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}
