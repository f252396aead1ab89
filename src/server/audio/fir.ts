/**
 * Linear-phase FIR filters designed by the window method with a Kaiser window: the attenuation is chosen
 * directly (Kaiser's formulas for β and length), and a symmetric filter needs no phase correction.
 */

/** A band-pass filter's specification; frequencies in Hz. */
export interface BandPassSpec {
  sampleRate: number;
  /** Lower and upper cut-off (−6 dB points), the middle of each transition band. */
  low: number;
  high: number;
  /** Width of each transition band: full attenuation is reached `transition / 2` outside the cut-off. */
  transition: number;
  /** Minimum stop-band attenuation in dB (> 21). */
  attenuationDb: number;
}

/** Modified Bessel function of the first kind, order 0 (power series; converges fast for Kaiser's β). */
export function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; term > sum * 1e-17; k++) {
    term *= q / (k * k);
    sum += term;
  }
  return sum;
}

/** Kaiser's window parameters for an attenuation `a` (dB) and a transition `width` (radians per sample). */
export function kaiserParameters(a: number, width: number): { beta: number; length: number } {
  const beta = a > 50 ? 0.1102 * (a - 8.7) : 0.5842 * (a - 21) ** 0.4 + 0.07886 * (a - 21);
  return { beta, length: Math.ceil((a - 8) / (2.285 * width)) + 1 };
}

/** Taps of a linear-phase band-pass FIR (odd length, symmetric) meeting `spec`. */
export function designBandPass(spec: BandPassSpec): Float64Array {
  const { sampleRate, low, high, transition, attenuationDb: a } = spec;
  const { beta, length: minimum } = kaiserParameters(a, (2 * Math.PI * transition) / sampleRate);
  let length = minimum;
  if (length % 2 === 0) length++;
  const mid = (length - 1) / 2;
  const fl = low / sampleRate;
  const fh = high / sampleRate;
  const taps = new Float64Array(length);
  const norm = besselI0(beta);
  for (let n = 0; n < length; n++) {
    const t = n - mid;
    const ideal = t === 0 ? 2 * (fh - fl) : (Math.sin(2 * Math.PI * fh * t) - Math.sin(2 * Math.PI * fl * t)) / (Math.PI * t);
    const r = t / mid;
    taps[n] = ideal * (besselI0(beta * Math.sqrt(1 - r * r)) / norm);
  }
  return taps;
}

/**
 * Filters `input` with symmetric `taps`, compensating the filter's delay so the output lines up with the
 * input (same length; the signal is taken as zero outside it).
 */
export function filterSymmetric(input: Float64Array, taps: Float64Array): Float64Array {
  const n = input.length;
  const mid = (taps.length - 1) / 2;
  // Zero padding on both sides keeps the inner loop free of bounds checks.
  const padded = new Float64Array(n + 2 * mid);
  padded.set(input, mid);
  const out = new Float64Array(n);
  const centre = taps[mid]!;
  for (let i = 0; i < n; i++) {
    const c = i + mid;
    let acc = centre * padded[c]!;
    // Symmetric taps: one multiplication per pair of samples.
    for (let k = 1; k <= mid; k++) acc += taps[mid + k]! * (padded[c - k]! + padded[c + k]!);
    out[i] = acc;
  }
  return out;
}
