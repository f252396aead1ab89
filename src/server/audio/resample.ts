/**
 * Sample-rate conversion with the Speex resampler (SpeexDSP compiled to WebAssembly): a windowed-sinc
 * filter, so changing the rate keeps the pitch and does not alias the way dropping samples does.
 */
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

/** Resamples mono PCM16 from `fromRate` to `toRate`; returns a copy when the rates are equal. */
export async function resamplePcm16(pcm: Int16Array, fromRate: number, toRate: number): Promise<Int16Array> {
  for (const r of [fromRate, toRate]) {
    if (!Number.isInteger(r) || r <= 0) throw new RangeError(`Invalid sample rate: ${r}`);
  }
  if (fromRate === toRate) return pcm.slice();
  const expected = Math.round((pcm.length * toRate) / fromRate);
  if (pcm.length === 0) return new Int16Array(0);
  return runSpeex(await loadSpeex(), pcm, fromRate, toRate, expected);
}

function runSpeex(m: SpeexModule, pcm: Int16Array, fromRate: number, toRate: number, expected: number): Int16Array {
  const errPtr = m._malloc(4);
  const state = m._speex_resampler_init(1, fromRate, toRate, QUALITY, errPtr);
  const err = m.HEAPU32[errPtr >> 2];
  m._free(errPtr);
  if (state === 0 || err !== 0) throw new Error(`Speex resampler init failed (error ${err})`);
  // The filter delays its output by its latency: skip the leading zeros it would emit, and feed as many
  // trailing zeros so the end of the signal comes out too.
  m._speex_resampler_skip_zeros(state);
  const padding = m._speex_resampler_get_input_latency(state);
  const inLength = pcm.length + padding;
  const outCapacity = expected + Math.ceil((padding * toRate) / fromRate) + 16;
  const inPtr = m._malloc(inLength * 2);
  const outPtr = m._malloc(outCapacity * 2);
  const lensPtr = m._malloc(8);
  try {
    // Take the heap views after every malloc: growing the memory replaces them.
    m.HEAP16.set(pcm, inPtr >> 1);
    m.HEAP16.fill(0, (inPtr >> 1) + pcm.length, (inPtr >> 1) + inLength);
    let consumed = 0;
    let produced = 0;
    while (consumed < inLength && produced < outCapacity) {
      m.HEAPU32[lensPtr >> 2] = inLength - consumed;
      m.HEAPU32[(lensPtr >> 2) + 1] = outCapacity - produced;
      const rc = m._speex_resampler_process_int(state, 0, inPtr + consumed * 2, lensPtr, outPtr + produced * 2, lensPtr + 4);
      if (rc !== 0) throw new Error(`Speex resampler failed (error ${rc})`);
      const took = m.HEAPU32[lensPtr >> 2] as number;
      const gave = m.HEAPU32[(lensPtr >> 2) + 1] as number;
      if (took === 0 && gave === 0) break;
      consumed += took;
      produced += gave;
    }
    const out = new Int16Array(expected);
    out.set(m.HEAP16.subarray(outPtr >> 1, (outPtr >> 1) + Math.min(produced, expected)));
    return out;
  } finally {
    m._free(inPtr);
    m._free(outPtr);
    m._free(lensPtr);
    m._speex_resampler_destroy(state);
  }
}
