/**
 * One utterance streamed to one provider and measured (DESIGN §13.2): the audio is resampled to what
 * the provider takes, cut into 20 ms frames of 16-bit PCM, paced by the shared scheduler, and the stream
 * closed as the vendor documents once the last frame is out. Every result is stamped on receipt; the
 * figures come from `streamMetrics`. A vendor failure — refused handshake, early close, malformed
 * message, or silence for `stallTimeoutMs` after the audio — becomes this utterance's `error`, never a
 * thrown exception, so a caller running many streams loses only the one. The stall timer re-arms on every
 * message, so a vendor that never stops talking is ended by `deadlineMs` instead (DESIGN §17.5); however a
 * stream ends, the vendor's socket or process goes with it.
 */
import { performance } from 'node:perf_hooks';
import { resamplePcm16 } from '../../../audio/resample.js';
import { speechBounds } from '../../../../shared/streaming/speech-bounds.js';
import { streamMetrics, type ReceivedResult, type StreamMetrics } from '../../../../shared/streaming/metrics.js';
import { SttError, type StreamEvent, type StreamingCapability, type SttErrorCode, type SttStream } from '../types.js';
import { achievedPace, quantile, type FrameScheduler } from './scheduler.js';

/** Audio per frame (ms). */
export const FRAME_MS = 20;
/** Default: a stream that says nothing for this long after the audio ended has stalled. */
export const DEFAULT_STALL_TIMEOUT_MS = 10_000;

/** How to stream one utterance. */
export interface StreamRunOptions {
  /** 1.0 = real time (0.5..4 in evaluations). */
  pace: number;
  language?: string;
  keyterms?: string[];
  /** No message for this long once the audio is sent ends the stream with `timeout` (default 10 s). */
  stallTimeoutMs?: number;
  /** Cancels the stream (recorded as `timeout`). */
  signal?: AbortSignal;
  /** The stream ends with `timeout` this long (ms) after `runStream` was called, whatever the vendor does. */
  deadlineMs?: number;
  /**
   * Streams opened as one group (one file to several providers, a batch of utterances): each waits here
   * after its handshake so that all start pacing together, rather than each first frame competing
   * with the other handshakes for the event loop.
   */
  barrier?: StartBarrier;
  /** Called once the first frame went out, with its monotonic send time. */
  onStarted?: (firstFrameAt: number) => void;
  /** Called with every event as it arrives (the live view of `stt stream`). */
  onEvent?: (event: StreamEvent) => void;
}

/** A meeting point for `n` streams: `arrive` resolves once all `n` have arrived (or left). */
export interface StartBarrier {
  arrive(): Promise<void>;
}

/** A barrier for `n` streams (a failed handshake arrives too, so the others never wait for it). */
export function startBarrier(n: number): StartBarrier {
  let count = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  if (n <= 0) release();
  return {
    arrive() {
      if (++count >= n) release();
      return all;
    },
  };
}

/** Collaborators: the shared pacer and the monotonic clock it runs on. */
export interface StreamRunDeps {
  scheduler: FrameScheduler;
  now?: () => number;
}

/** What one streamed utterance gives back: the §13.2 figures, how well the pacing went, the error if any. */
export interface StreamRun extends StreamMetrics {
  transcript: string;
  error?: { code: SttErrorCode; message: string };
  /** Audio sent per wall time (1.0 = real time as asked at pace 1). */
  achieved_pace: number | null;
  /** 99th percentile of how late frames left (ms). */
  send_jitter_p99_ms: number;
  frames: number;
  audio_ms: number;
  /** Monotonic time the first frame went out (null: none did), to line a run up with other records. */
  started_at: number | null;
  /** Every result as received (receipt times relative to the first frame). */
  results: ReceivedResult[];
}

/** Streams `audio` through `streaming` and measures it; resolves (never rejects) when the stream is over. */
export async function runStream(deps: StreamRunDeps, streaming: StreamingCapability, audio: { pcm: Int16Array; sampleRate: number }, opts: StreamRunOptions): Promise<StreamRun> {
  const now = deps.now ?? (() => performance.now());
  const begun = now();
  const speech = speechBounds(audio.pcm, audio.sampleRate);
  const rate = streaming.sampleRate;
  const pcm = audio.sampleRate === rate ? audio.pcm : await resamplePcm16(audio.pcm, audio.sampleRate, rate);
  const perFrame = Math.round((rate * FRAME_MS) / 1000);
  const frames = Math.ceil(pcm.length / perFrame);
  const audioMs = (audio.pcm.length / audio.sampleRate) * 1000;
  const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const results: ReceivedResult[] = [];
  let error: SttError | undefined;
  let sentAt: number[] = [];
  let lateness: number[] = [];

  await new Promise<void>((settle) => {
    let session: SttStream | undefined;
    let stallTimer: NodeJS.Timeout | undefined;
    let deadlineTimer: NodeJS.Timeout | undefined;
    let audioDone = false;
    let over = false;
    let cancel = () => {};
    // Given to the adapter: a handshake still under way when the stream ends (deadline, client gone) stops.
    const ended = new AbortController();
    const finish = (err?: SttError) => {
      if (over) return;
      over = true;
      if (err && !error) error = err;
      clearTimeout(stallTimer);
      clearTimeout(deadlineTimer);
      cancel();
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) session?.abort();
      ended.abort();
      settle();
    };
    const armStall = () => {
      if (!audioDone) return;
      clearTimeout(stallTimer);
      const ms = opts.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
      stallTimer = setTimeout(() => finish(new SttError('timeout', `No message for ${(ms / 1000).toFixed(1)} s after the end of the audio: the stream stalled`)), ms);
    };
    const onAbort = () => finish(new SttError('timeout', 'The stream was cancelled before it finished'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    if (opts.deadlineMs !== undefined && !over) {
      const ms = opts.deadlineMs;
      deadlineTimer = setTimeout(
        () => finish(new SttError('timeout', `The stream did not end within its deadline of ${(ms / 1000).toFixed(0)} s`)),
        Math.max(0, ms - (now() - begun)),
      );
    }
    const onEvent = (e: StreamEvent) => {
      if (over) return;
      opts.onEvent?.(e);
      if (e.type === 'partial' || e.type === 'final') results.push({ kind: e.type, text: e.text, ...(e.words ? { words: e.words } : {}), at: e.at });
      if (e.type === 'error') finish(e.error);
      else if (e.type === 'close') finish(audioDone ? undefined : new SttError('upstream_error', 'The stream closed before the end of the audio'));
      else armStall();
    };
    // An adapter may throw before its promise exists (a missing key): one path for both.
    Promise.resolve()
      .then(() => (over ? Promise.reject(error ?? new SttError('timeout', 'The stream was cancelled before it started')) : streaming.open({ sampleRate: rate, language: opts.language, keyterms: opts.keyterms, now, signal: ended.signal }, onEvent)))
      .then(async (s) => {
        session = s;
        await opts.barrier?.arrive();
        if (over) {
          s.abort();
          return;
        }
        const paced = deps.scheduler.add({
          frames,
          frameMs: FRAME_MS,
          pace: opts.pace,
          send: (k) => s.send(bytes.subarray(k * perFrame * 2, Math.min(bytes.length, (k + 1) * perFrame * 2))),
        });
        sentAt = paced.sentAt;
        lateness = paced.lateness;
        cancel = paced.cancel;
        if (sentAt[0] !== undefined) opts.onStarted?.(sentAt[0]);
        paced.done.then(
          () => {
            if (over) return;
            audioDone = true;
            s.end();
            armStall();
          },
          (err: unknown) => finish(new SttError('upstream_error', `Sending audio failed: ${err instanceof Error ? err.message : String(err)}`)),
        );
      })
      .catch((err: unknown) => {
        if (!session) void opts.barrier?.arrive();
        finish(err instanceof SttError ? err : new SttError('upstream_error', `Could not open the stream: ${String(err)}`));
      });
  });

  const metrics = streamMetrics({ frameMs: FRAME_MS, sentAt, audioMs, speech, results });
  const t0 = sentAt[0] ?? 0;
  return {
    ...metrics,
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
    achieved_pace: achievedPace(sentAt, FRAME_MS),
    send_jitter_p99_ms: Math.round(quantile(lateness.map(Math.abs), 0.99) * 100) / 100,
    frames: sentAt.length,
    audio_ms: Math.round(audioMs),
    started_at: sentAt[0] ?? null,
    results: results.map((r) => ({ ...r, at: Math.round((r.at - t0) * 10) / 10 })),
  };
}
