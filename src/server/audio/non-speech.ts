/**
 * Clips with no speech in them (DESIGN §12.1): what a provider should answer with nothing, and what
 * Whisper-style models fill with "thank you" and loops. Seeded and 16 kHz, so a rerun sends the same
 * samples. Levels are set on purpose: noise at −30 dBFS RMS, hum and tones at −20 dBFS peak — loud enough
 * to trigger a voice-activity detector, nothing a listener would call speech.
 */
import { createPrng } from '../../shared/stats.js';
import type { NonSpeechKind } from '../../shared/non-speech.js';
import type { Pcm16Audio } from './wav.js';

/** The probe's sampling rate. */
export const NON_SPEECH_RATE = 16_000;

const FULL_SCALE = 32_767;
const dbfs = (db: number) => FULL_SCALE * 10 ** (db / 20);

/** A standard normal draw (Box–Muller) from a uniform generator. */
function gaussian(rng: () => number): number {
  const u = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

// DTMF: the row and column frequencies of each key.
const DTMF_ROWS = [697, 770, 852, 941];
const DTMF_COLS = [1209, 1336, 1477, 1633];
const DTMF_KEYS = '123A456B789C*0#D';

/** Writes a sum of sines into `out[from, to)`, with 5 ms ramps so keys and tone changes do not click. */
function sines(out: Float32Array, from: number, to: number, freqs: readonly number[], peak: number): void {
  const ramp = Math.round(0.005 * NON_SPEECH_RATE);
  const each = peak / freqs.length;
  for (let i = from; i < to; i++) {
    const t = i / NON_SPEECH_RATE;
    const edge = Math.min(1, (i - from) / ramp, (to - 1 - i) / ramp);
    let v = 0;
    for (const f of freqs) v += Math.sin(2 * Math.PI * f * t);
    out[i] = v * each * edge;
  }
}

/** One clip of `kind`, `seconds` long, from `seed`. */
export function nonSpeechClip(kind: NonSpeechKind, seconds: number, seed: number): Pcm16Audio {
  const n = Math.round(seconds * NON_SPEECH_RATE);
  const rng = createPrng(seed);
  const x = new Float32Array(n);
  switch (kind) {
    case 'silence':
      // Digital zero is trivially detectable; ±1 LSB of dither is what a real silent line carries.
      for (let i = 0; i < n; i++) x[i] = Math.floor(rng() * 3) - 1;
      break;
    case 'noise': {
      const rms = dbfs(-30);
      for (let i = 0; i < n; i++) x[i] = gaussian(rng) * rms;
      break;
    }
    case 'hum': {
      // Mains hum: 50 Hz and its odd and even harmonics falling off, with a random phase per harmonic.
      const peak = dbfs(-20);
      const harmonics = [1, 0.5, 0.3, 0.2, 0.12, 0.08].map((a, k) => ({ f: 50 * (k + 1), a, phase: rng() * 2 * Math.PI }));
      const total = harmonics.reduce((s, h) => s + h.a, 0);
      for (let i = 0; i < n; i++) {
        const t = i / NON_SPEECH_RATE;
        let v = 0;
        for (const h of harmonics) v += h.a * Math.sin(2 * Math.PI * h.f * t + h.phase);
        x[i] = (v / total) * peak;
      }
      break;
    }
    case 'tone': {
      // Hold-music-like: 440 and 480 Hz alternating every 0.5 s (the seed shifts where it starts).
      const half = Math.round(0.5 * NON_SPEECH_RATE);
      const offset = Math.floor(rng() * 2);
      for (let from = 0, k = offset; from < n; from += half, k++) sines(x, from, Math.min(n, from + half), [k % 2 ? 480 : 440], dbfs(-20));
      break;
    }
    case 'dtmf': {
      // Random keys, 100 ms tone then 100 ms gap (the timing of an automated dialler).
      const key = Math.round(0.1 * NON_SPEECH_RATE);
      for (let from = 0; from < n; from += 2 * key) {
        const k = Math.floor(rng() * DTMF_KEYS.length);
        sines(x, from, Math.min(n, from + key), [DTMF_ROWS[Math.floor(k / 4)]!, DTMF_COLS[k % 4]!], dbfs(-20));
      }
      break;
    }
  }
  const pcm = new Int16Array(n);
  for (let i = 0; i < n; i++) pcm[i] = Math.max(-32_768, Math.min(FULL_SCALE, Math.round(x[i]!)));
  return { pcm, sampleRate: NON_SPEECH_RATE };
}

/**
 * The probe's clips: `clips` of them, the kinds in turn (so 20 clips of 5 kinds are 4 of each), each
 * from its own seed derived from the evaluation's — clip `i` is the same whatever else the run holds.
 */
export function nonSpeechClips(opts: { clips: number; seconds: number; kinds: readonly NonSpeechKind[]; seed: number }): { kind: NonSpeechKind; index: number; audio: Pcm16Audio }[] {
  return Array.from({ length: opts.clips }, (_, index) => {
    const kind = opts.kinds[index % opts.kinds.length]!;
    return { kind, index, audio: nonSpeechClip(kind, opts.seconds, (opts.seed * 1_000_003 + index * 7_919) >>> 0) };
  });
}
