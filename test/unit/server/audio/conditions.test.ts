// The audio conditions of evaluations (DESIGN §8.1), measured on their output: spectrum, SNR, duration,
// determinism, and what the offline recogniser makes of a Flite sentence under each of them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyCondition, TELEPHONE_RATE } from '../../../../src/server/audio/conditions.js';
import { decodeAudio } from '../../../../src/server/audio/decode.js';
import { linearToMulaw, mulawRoundTrip, mulawToLinear } from '../../../../src/server/audio/mulaw.js';
import { encodeWav } from '../../../../src/server/audio/wav.js';
import { createLocalSphinxAdapter } from '../../../../src/server/engines/stt/local-sphinx.js';
import { calculateAccuracy } from '../../../../src/shared/accuracy.js';
import { parseCondition, type AudioCondition } from '../../../../src/shared/conditions.js';
import { createPrng } from '../../../../src/shared/stats.js';

/** Seeded white noise, RMS about 3000 (no clipping). */
function whiteNoise(samples: number, seed: number): Int16Array {
  const random = createPrng(seed);
  return Int16Array.from({ length: samples }, () => Math.round((random() - 0.5) * 10_000));
}

/** A voiced-speech-like test signal: harmonics of 150 Hz under a 3 Hz syllable envelope, with pauses. */
function speechLike(samples: number, rate: number): Int16Array {
  return Int16Array.from({ length: samples }, (_, i) => {
    const t = i / rate;
    const envelope = Math.max(0, Math.sin(2 * Math.PI * 3 * t));
    let v = 0;
    for (let h = 1; h <= 20; h++) v += Math.sin(2 * Math.PI * 150 * h * t) / h;
    return Math.round(4000 * envelope * v);
  });
}

/** In-place radix-2 FFT of (re, im), length a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(ang * k);
        const wi = Math.sin(ang * k);
        const a = i + k;
        const b = a + len / 2;
        const xr = re[b]! * wr - im[b]! * wi;
        const xi = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a]! += xr;
        im[a]! += xi;
      }
    }
  }
}

/**
 * Mean-square power of `pcm` in each frequency band (Hz, [lo, hi)), by Parseval over a zero-padded FFT: a
 * per-sample power, so it compares across sample rates.
 */
function bandPowers(pcm: Int16Array, rate: number, bands: readonly [number, number][]): number[] {
  let n = 1;
  while (n < pcm.length) n <<= 1;
  const re = new Float64Array(n);
  re.set(pcm);
  const im = new Float64Array(n);
  fft(re, im);
  return bands.map(([lo, hi]) => {
    let sum = 0;
    for (let k = 0; k <= n / 2; k++) {
      const f = (k * rate) / n;
      if (f >= lo && f < hi) sum += (k === 0 || k === n / 2 ? 1 : 2) * (re[k]! ** 2 + im[k]! ** 2);
    }
    return sum / n / pcm.length;
  });
}

const dB = (ratio: number) => 10 * Math.log10(ratio);

/** SNR of `out` against `clean`: the clean part is the least-squares projection (a gain applied to both is allowed). */
function measuredSnr(clean: Int16Array, out: Int16Array): number {
  let cc = 0;
  let co = 0;
  for (let i = 0; i < clean.length; i++) {
    cc += clean[i]! * clean[i]!;
    co += clean[i]! * out[i]!;
  }
  const gain = co / cc;
  let noise = 0;
  for (let i = 0; i < clean.length; i++) noise += (out[i]! - gain * clean[i]!) ** 2;
  return dB((gain * gain * cc) / noise);
}

const apply = (pcm: Int16Array, sampleRate: number, condition: string, seed = 1) => applyCondition({ pcm, sampleRate }, parseCondition(condition), { seed });

describe('telephone', () => {
  const rate = 22_050;
  const input = whiteNoise(rate * 2, 7);

  it('is 8 kHz, band-limited to 300–3400 Hz: out-of-band energy drops by at least 30 dB, the band is kept', async () => {
    const out = await apply(input, rate, 'telephone');
    expect(out.sampleRate).toBe(TELEPHONE_RATE);
    expect(out.pcm.length).toBe(Math.round((input.length * TELEPHONE_RATE) / rate));
    const [inLow, inHigh, inBand] = bandPowers(input, rate, [[0, 300], [3400, rate / 2 + 1], [500, 3200]]);
    const [outLow, outHigh, outBand] = bandPowers(out.pcm, out.sampleRate, [[0, 300], [3400, TELEPHONE_RATE / 2 + 1], [500, 3200]]);
    expect(dB(inLow! + inHigh!) - dB(outLow! + outHigh!)).toBeGreaterThanOrEqual(30);
    expect(dB(inLow!) - dB(outLow!)).toBeGreaterThanOrEqual(30);
    // Of 3400–4000 Hz, which 8 kHz can still carry, as much is gone.
    const [in34] = bandPowers(input, rate, [[3400, 4000]]);
    expect(dB(in34!) - dB(outHigh!)).toBeGreaterThanOrEqual(30);
    expect(Math.abs(dB(inBand!) - dB(outBand!))).toBeLessThan(1);
  });

  it('quantises every sample to a G.711 µ-law level', async () => {
    const out = await apply(input, rate, 'telephone');
    const levels = new Set(Array.from({ length: 256 }, (_, code) => mulawToLinear(code)));
    expect(out.pcm.every((s) => levels.has(s))).toBe(true);
  });
});

describe('G.711 µ-law', () => {
  it('encodes the reference points of the recommendation', () => {
    expect(linearToMulaw(0)).toBe(0xff);
    expect(linearToMulaw(32767)).toBe(0x80);
    expect(linearToMulaw(-32768)).toBe(0x00);
    expect(mulawToLinear(0xff)).toBe(0);
    expect(mulawToLinear(0x80)).toBe(32124);
    expect(mulawToLinear(0x00)).toBe(-32124);
  });

  it('round-trips with an error that grows with the level (8-bit logarithmic) and keeps the order', () => {
    const all = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
    const back = mulawRoundTrip(all);
    const bad: number[] = [];
    for (let i = 0; i < all.length; i++) {
      const x = all[i]!;
      // half a step of the segment (steps double per segment, 16 per segment); the clip level beyond ±32124
      const allowed = Math.max(8, Math.abs(x) / 16) + (Math.abs(x) > 32124 ? 700 : 0);
      if (Math.abs(back[i]! - x) > allowed || (i > 0 && back[i]! < back[i - 1]!)) bad.push(x);
    }
    expect(bad).toEqual([]);
    expect(new Set(back).size).toBe(255); // 256 codes, +0 and −0 decode alike
  });
});

describe('noise:{snr}', () => {
  const rate = 16_000;
  const clean = speechLike(rate * 2, rate);

  it.each([-10, -5, 0, 5, 10, 20, 40])('measures %d dB SNR on the result (±0.5 dB)', async (snr) => {
    const out = await apply(clean, rate, `noise:${snr}`);
    expect(out.sampleRate).toBe(rate);
    expect(out.pcm.length).toBe(clean.length);
    expect(Math.abs(measuredSnr(clean, out.pcm) - snr)).toBeLessThanOrEqual(0.5);
  });

  it('adds white noise: flat spectrum where the signal has none', async () => {
    const silence = new Int16Array(rate);
    const tone = Int16Array.from({ length: rate }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)));
    const out = await apply(Int16Array.from([...tone, ...silence]), rate, 'noise:10');
    const tail = out.pcm.subarray(rate);
    const [a, b, c] = bandPowers(tail, rate, [[100, 2100], [3000, 5000], [6000, 8000]]);
    expect(Math.abs(dB(a! / b!))).toBeLessThan(0.5);
    expect(Math.abs(dB(b! / c!))).toBeLessThan(0.5);
  });

  it('is deterministic for a seed and differs between seeds', async () => {
    const a = await apply(clean, rate, 'noise:5', 42);
    const b = await apply(clean, rate, 'noise:5', 42);
    const c = await apply(clean, rate, 'noise:5', 43);
    expect(Buffer.from(a.pcm.buffer).equals(Buffer.from(b.pcm.buffer))).toBe(true);
    expect(Buffer.from(a.pcm.buffer).equals(Buffer.from(c.pcm.buffer))).toBe(false);
  });

  it('leaves silence silent (no signal, no noise to scale)', async () => {
    const out = await apply(new Int16Array(1000), rate, 'noise:0');
    expect(out.pcm.every((s) => s === 0)).toBe(true);
  });
});

describe('speed:{factor}', () => {
  const rate = 22_050;
  const tone = Int16Array.from({ length: rate * 2 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)));

  /** Frequency of a pure tone from its zero crossings. */
  const toneFrequency = (pcm: Int16Array, r: number) => {
    let crossings = 0;
    for (let i = 1; i < pcm.length; i++) if ((pcm[i - 1]! < 0) !== (pcm[i]! < 0)) crossings++;
    return (crossings / 2) * (r / pcm.length);
  };

  it.each([0.5, 0.8, 1.25, 1.5, 2])('factor %d: duration × 1/factor, pitch × factor, same rate', async (factor) => {
    const out = await apply(tone, rate, `speed:${factor}`);
    expect(out.sampleRate).toBe(rate);
    expect(Math.abs(out.pcm.length - tone.length / factor)).toBeLessThanOrEqual(1);
    expect(toneFrequency(out.pcm, rate)).toBeCloseTo(440 * factor, -1);
  });
});

describe('every condition', () => {
  const conditions = ['clean', 'telephone', 'noise:5', 'speed:1.5'];
  const input = speechLike(22_050, 22_050);

  it.each(conditions)('%s gives the same samples for the same audio and seed, and leaves its input alone', async (c) => {
    const copy = input.slice();
    const a = await apply(input, 22_050, c, 9);
    const b = await apply(input, 22_050, c, 9);
    expect(Buffer.from(a.pcm.buffer).equals(Buffer.from(b.pcm.buffer))).toBe(true);
    expect(a.sampleRate).toBe(b.sampleRate);
    expect(Buffer.from(input.buffer).equals(Buffer.from(copy.buffer))).toBe(true);
  });

  it('clean is an exact copy', async () => {
    const out = await apply(input, 22_050, 'clean');
    expect(out.pcm).not.toBe(input);
    expect(Array.from(out.pcm)).toEqual(Array.from(input));
  });

  it('refuses an invalid sample rate', async () => {
    await expect(applyCondition({ pcm: input, sampleRate: 0 }, { kind: 'clean' } as AudioCondition, { seed: 0 })).rejects.toThrow('Invalid sample rate: 0');
  });
});

describe('a Flite sentence through local-sphinx under each condition', () => {
  const SENTENCE = 'Please call me back after the meeting tomorrow morning.';

  it('transcribes each condition: clean exactly, speed:0.8 and telephone (8 kHz µ-law brought back to 16 kHz) nearly', async () => {
    const d = await decodeAudio(readFileSync(new URL('../../../../fixtures/speech-slt.wav', import.meta.url)));
    const adapter = createLocalSphinxAdapter();
    const wer: Record<string, number> = {};
    for (const c of ['clean', 'telephone', 'speed:0.8']) {
      const a = await applyCondition({ pcm: d.pcm, sampleRate: d.sampleRate }, parseCondition(c), { seed: 1 });
      const out = await adapter.transcribe({ pcm: a.pcm, sampleRate: a.sampleRate, durationSeconds: a.pcm.length / a.sampleRate, wav: encodeWav(a.pcm, a.sampleRate) }, { signal: AbortSignal.timeout(60_000) });
      expect(typeof out.transcript).toBe('string');
      wer[c] = calculateAccuracy(SENTENCE, out.transcript).wer;
    }
    expect(wer.clean).toBe(0);
    expect(wer['speed:0.8']).toBeLessThan(0.25);
    // The 16 kHz acoustic model lacks the energy above 4 kHz here. Decoded whole (warm pocketsphinx_batch,
    // the utterance's own cepstral mean) this sentence is still heard: measured WER 0. Cut at pauses with
    // a running mean (pocketsphinx_continuous, before 0.3.0) it was lost: WER 1.0.
    expect(wer.telephone).toBeLessThan(0.5);
  });
});
