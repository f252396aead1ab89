/**
 * Applies the audio conditions of evaluations (DESIGN §8.1, EVALUATION-NOTES.md) to mono PCM16: the
 * degradations every provider hears the same way. Deterministic: the same audio, condition and seed give
 * the same samples.
 */
import type { AudioCondition } from '../../shared/conditions.js';
import { createPrng } from '../../shared/stats.js';
import { designBandPass, filterSymmetric } from './fir.js';
import { mulawRoundTrip } from './mulaw.js';
import { resampleFiltered } from './polyphase.js';
import { resamplePcm16 } from './resample.js';
import type { Pcm16Audio } from './wav.js';

/** G.711's sampling rate. */
export const TELEPHONE_RATE = 8_000;

/**
 * The telephone band-pass at 8 kHz: at least 50 dB down from 300 Hz and below and from 3400 Hz and above
 * (the cut-offs sit half a transition inside the band), so what a line would not carry is gone. 50 dB is
 * below the µ-law quantisation floor (~38 dB under the signal) already; more would only add taps.
 */
const TELEPHONE_TRANSITION = 150;
const telephoneTaps = designBandPass({
  sampleRate: TELEPHONE_RATE,
  low: 300 + TELEPHONE_TRANSITION / 2,
  high: 3400 - TELEPHONE_TRANSITION / 2,
  transition: TELEPHONE_TRANSITION,
  attenuationDb: 50,
});

/** Degrades `audio` by `condition`; `seed` drives the noise. Telephone output is 8 kHz, others keep the rate. */
export async function applyCondition(audio: Pcm16Audio, condition: AudioCondition, options: { seed: number }): Promise<Pcm16Audio> {
  const { pcm, sampleRate } = audio;
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw new RangeError(`Invalid sample rate: ${sampleRate}`);
  switch (condition.kind) {
    case 'clean':
      return { pcm: pcm.slice(), sampleRate };
    case 'telephone':
      return { pcm: telephone(pcm, sampleRate), sampleRate: TELEPHONE_RATE };
    case 'noise':
      return { pcm: addNoise(pcm, condition.snrDb, options.seed), sampleRate };
    case 'speed':
      return { pcm: await changeSpeed(pcm, sampleRate, condition.factor), sampleRate };
  }
}

/**
 * Down to 8 kHz, band-pass, µ-law. The decimator only has to keep aliases out of the telephone band: what
 * lies above 4.6 kHz would fold below 3.4 kHz, what lies between is removed by the band-pass anyway.
 */
function telephone(pcm: Int16Array, sampleRate: number): Int16Array {
  const narrow = resampleFiltered(pcm, sampleRate, TELEPHONE_RATE, { cutoff: 4000, transition: 1200, attenuationDb: 60 });
  return mulawRoundTrip(toPcm16(filterSymmetric(narrow, telephoneTaps)));
}

/**
 * Adds white Gaussian noise whose mean square is exactly P_signal / 10^(snr/10) over the utterance. When
 * the sum would clip, signal and noise are scaled down together: loudness changes, the SNR does not.
 */
function addNoise(pcm: Int16Array, snrDb: number, seed: number): Int16Array {
  const n = pcm.length;
  let signalPower = 0;
  for (let i = 0; i < n; i++) signalPower += pcm[i]! * pcm[i]!;
  signalPower /= Math.max(1, n);
  const noise = gaussian(n, seed);
  let noisePower = 0;
  for (let i = 0; i < n; i++) noisePower += noise[i]! * noise[i]!;
  noisePower /= Math.max(1, n);
  const scale = noisePower > 0 ? Math.sqrt(signalPower / 10 ** (snrDb / 10) / noisePower) : 0;
  const mixed = new Float64Array(n);
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const v = pcm[i]! + noise[i]! * scale;
    mixed[i] = v;
    if (Math.abs(v) > peak) peak = Math.abs(v);
  }
  if (peak > 32767) for (let i = 0; i < n; i++) mixed[i]! *= 32767 / peak;
  return toPcm16(mixed);
}

/** `n` standard normal samples from the seeded PRNG (Box–Muller, both outputs of each pair used). */
function gaussian(n: number, seed: number): Float64Array {
  const random = createPrng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - random())); // 1 − u is in (0, 1]: no log(0)
    const theta = 2 * Math.PI * random();
    out[i] = r * Math.cos(theta);
    if (i + 1 < n) out[i + 1] = r * Math.sin(theta);
  }
  return out;
}

/**
 * Plays the audio `factor` times faster, as a tape would (tempo and pitch together): the samples are read
 * as if recorded at `sampleRate × factor` and resampled to `sampleRate`, so the duration is 1/factor.
 */
async function changeSpeed(pcm: Int16Array, sampleRate: number, factor: number): Promise<Int16Array> {
  if (!(factor > 0)) throw new RangeError(`Invalid speed factor: ${factor}`);
  return resamplePcm16(pcm, Math.round(sampleRate * factor), sampleRate);
}

/** Rounds to 16-bit samples, saturating. */
function toPcm16(samples: Float64Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i]!);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}
