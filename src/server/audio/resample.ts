/**
 * Sample-rate conversion with the Speex resampler (SpeexDSP compiled to WebAssembly): a windowed-sinc
 * filter, so changing the rate keeps the pitch and does not alias the way dropping samples does.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import SpeexResampler from '@echogarden/speex-resampler-wasm';

/** The part of the Emscripten module we use. */
interface SpeexModule {
  HEAP16: Int16Array;
  HEAPU32: Uint32Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  _speex_resampler_init(channels: number, inRate: number, outRate: number, quality: number, errPtr: number): number;
  _speex_resampler_destroy(state: number): void;
  _speex_resampler_skip_zeros(state: number): number;
  _speex_resampler_get_input_latency(state: number): number;
  _speex_resampler_process_int(
    state: number,
    channel: number,
    inPtr: number,
    inLenPtr: number,
    outPtr: number,
    outLenPtr: number,
  ): number;
}

/** Speex quality 0..10; 7 is transparent for speech and still far faster than real time. */
const QUALITY = 7;

// The compiled module is immutable code plus a heap we free after every call, so one per thread is safe
// to share; loading it lazily keeps importers that never resample from paying for it.
let speex: Promise<SpeexModule> | undefined;

function loadSpeex(): Promise<SpeexModule> {
  speex ??= SpeexResampler() as Promise<SpeexModule>;
  return speex;
}

/** Input samples per call into the resampler: its heap buffers stay this small, whatever the signal's length. */
const CHUNK = 64 * 1024;
/** Samples resampled between two turns given back to the event loop (a few ms of work). */
const SAMPLES_PER_TURN = 1024 * 1024;

/**
 * A resampler fed in pieces (DESIGN §17.4: resampling streams in chunks): its state carries across
 * `push` calls, so the output is the same as one call over the whole signal, and its WebAssembly heap holds
 * one chunk in and out whatever the length. `end` flushes the filter's delay and returns the rest; the
 * whole output is then `round(inputLength × toRate ÷ fromRate)` samples, as `resamplePcm16` gives.
 */
export class StreamResampler {
  private taken = 0;
  private given = 0;
  private closed = false;

  private constructor(
    private readonly m: SpeexModule,
    private readonly state: number,
    private readonly fromRate: number,
    private readonly toRate: number,
    private readonly padding: number,
    private readonly inPtr: number,
    private readonly outPtr: number,
    private readonly lensPtr: number,
    private readonly outCapacity: number,
  ) {}

  /** A resampler from `fromRate` to `toRate` (positive integers). */
  static async create(fromRate: number, toRate: number): Promise<StreamResampler> {
    for (const r of [fromRate, toRate]) {
      if (!Number.isInteger(r) || r <= 0) throw new RangeError(`Invalid sample rate: ${r}`);
    }
    const m = await loadSpeex();
    const errPtr = m._malloc(4);
    const state = m._speex_resampler_init(1, fromRate, toRate, QUALITY, errPtr);
    const err = m.HEAPU32[errPtr >> 2];
    m._free(errPtr);
    if (state === 0 || err !== 0) throw new Error(`Speex resampler init failed (error ${err})`);
    // The filter delays its output by its latency: skip the leading zeros it would emit, and feed as many
    // trailing zeros at the end so the end of the signal comes out too.
    m._speex_resampler_skip_zeros(state);
    const padding = m._speex_resampler_get_input_latency(state);
    const outCapacity = Math.ceil((CHUNK * toRate) / fromRate) + 64;
    return new StreamResampler(m, state, fromRate, toRate, padding, m._malloc(CHUNK * 2), m._malloc(outCapacity * 2), m._malloc(8), outCapacity);
  }

  /** Resamples the next piece of the signal and returns what came out of it. */
  push(pcm: Int16Array): Int16Array {
    const parts: Int16Array[] = [];
    for (let at = 0; at < pcm.length; at += CHUNK) parts.push(this.run(pcm.subarray(at, Math.min(pcm.length, at + CHUNK))));
    this.taken += pcm.length;
    return concat(parts);
  }

  /** Flushes the filter's delay: the last samples, trimmed or padded to the exact total length. */
  end(): Int16Array {
    const expected = Math.round((this.taken * this.toRate) / this.fromRate);
    const parts: Int16Array[] = [];
    for (let left = this.padding; left > 0 && this.given < expected; left -= CHUNK) parts.push(this.run(new Int16Array(Math.min(left, CHUNK))));
    const tail = concat(parts);
    this.close();
    const out = new Int16Array(Math.max(0, expected - (this.given - tail.length)));
    out.set(tail.subarray(0, out.length));
    return out;
  }

  /** Frees the resampler's memory (`end` does it too); safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.m._free(this.inPtr);
    this.m._free(this.outPtr);
    this.m._free(this.lensPtr);
    this.m._speex_resampler_destroy(this.state);
  }

  private run(piece: Int16Array): Int16Array {
    const m = this.m;
    // Take the heap views at every use: growing the memory (any malloc of the module) replaces them.
    m.HEAP16.set(piece, this.inPtr >> 1);
    const parts: Int16Array[] = [];
    let consumed = 0;
    while (consumed < piece.length) {
      m.HEAPU32[this.lensPtr >> 2] = piece.length - consumed;
      m.HEAPU32[(this.lensPtr >> 2) + 1] = this.outCapacity;
      const rc = m._speex_resampler_process_int(this.state, 0, this.inPtr + consumed * 2, this.lensPtr, this.outPtr, this.lensPtr + 4);
      if (rc !== 0) throw new Error(`Speex resampler failed (error ${rc})`);
      const took = m.HEAPU32[this.lensPtr >> 2] as number;
      const gave = m.HEAPU32[(this.lensPtr >> 2) + 1] as number;
      if (took === 0 && gave === 0) break;
      consumed += took;
      parts.push(m.HEAP16.slice(this.outPtr >> 1, (this.outPtr >> 1) + gave));
    }
    const out = concat(parts);
    this.given += out.length;
    return out;
  }
}

function concat(parts: Int16Array[]): Int16Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Resamples mono PCM16 from `fromRate` to `toRate`; returns a copy when the rates are equal. The signal
 * goes through in chunks, giving the event loop a turn every million samples.
 */
export async function resamplePcm16(pcm: Int16Array, fromRate: number, toRate: number): Promise<Int16Array> {
  for (const r of [fromRate, toRate]) {
    if (!Number.isInteger(r) || r <= 0) throw new RangeError(`Invalid sample rate: ${r}`);
  }
  if (fromRate === toRate) return pcm.slice();
  const expected = Math.round((pcm.length * toRate) / fromRate);
  if (pcm.length === 0) return new Int16Array(0);
  const r = await StreamResampler.create(fromRate, toRate);
  const out = new Int16Array(expected);
  let at = 0;
  const put = (part: Int16Array) => {
    const n = Math.min(part.length, expected - at);
    out.set(part.subarray(0, n), at);
    at += n;
  };
  try {
    for (let from = 0; from < pcm.length; from += SAMPLES_PER_TURN) {
      if (from > 0) await nextTurn();
      put(r.push(pcm.subarray(from, Math.min(pcm.length, from + SAMPLES_PER_TURN))));
    }
    put(r.end());
  } finally {
    r.close();
  }
  return out;
}
