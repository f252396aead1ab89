import { describe, expect, it } from 'vitest';
import { resamplePcm16 } from '../../../../src/server/audio/resample.js';

function sine(freq: number, rate: number, seconds: number, amplitude = 16000): Int16Array {
  return Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * freq * i) / rate)));
}

/** Frequency estimated from rising zero crossings over the middle of the signal (edges skipped). */
function zeroCrossingFrequency(pcm: Int16Array, rate: number): number {
  const start = Math.floor(pcm.length * 0.1);
  const end = Math.floor(pcm.length * 0.9);
  const crossings: number[] = [];
  for (let i = start + 1; i < end; i++) {
    const a = pcm[i - 1] as number;
    const b = pcm[i] as number;
    if (a < 0 && b >= 0) crossings.push(i - 1 + -a / (b - a));
  }
  const first = crossings[0] as number;
  const last = crossings[crossings.length - 1] as number;
  return ((crossings.length - 1) * rate) / (last - first);
}

function rms(pcm: Int16Array, from = 0, to = pcm.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += (pcm[i] as number) ** 2;
  return Math.sqrt(sum / (to - from));
}

describe('resamplePcm16', () => {
  it('returns an equal copy when the rates match', async () => {
    const pcm = sine(440, 16000, 0.1);
    const out = await resamplePcm16(pcm, 16000, 16000);
    expect(out).not.toBe(pcm);
    expect(Array.from(out)).toEqual(Array.from(pcm));
  });

  it.each([
    [22050, 16000],
    [22050, 8000],
    [16000, 24000],
    [8000, 22050],
  ])('%i -> %i keeps a 440 Hz sine at 440 Hz, with the right length and level', async (from, to) => {
    const pcm = sine(440, from, 1);
    const out = await resamplePcm16(pcm, from, to);
    expect(out.length).toBe(to);
    expect(zeroCrossingFrequency(out, to)).toBeCloseTo(440, 0);
    // No delay: the resampled signal is in phase with an ideal sine at the new rate.
    const ideal = sine(440, to, 1);
    let diff = 0;
    for (let i = Math.floor(to * 0.1); i < Math.floor(to * 0.9); i++) diff += ((out[i] as number) - (ideal[i] as number)) ** 2;
    expect(Math.sqrt(diff / (to * 0.8))).toBeLessThan(16000 * 0.05);
    expect(rms(out, to * 0.1, to * 0.9)).toBeGreaterThan(16000 * 0.65);
    expect(rms(out, to * 0.1, to * 0.9)).toBeLessThan(16000 * 0.76);
  });

  it('filters out what the new rate cannot carry instead of aliasing it', async () => {
    // 6 kHz is above the 4 kHz Nyquist limit of 8 kHz audio: sample dropping would fold it to 2 kHz.
    const out = await resamplePcm16(sine(6000, 22050, 0.5), 22050, 8000);
    expect(rms(out, 400, out.length - 400)).toBeLessThan(16000 * 0.05);
  });

  it('handles empty and very short input', async () => {
    expect((await resamplePcm16(new Int16Array(0), 22050, 16000)).length).toBe(0);
    expect((await resamplePcm16(Int16Array.from([1000, 2000, 3000]), 8000, 16000)).length).toBe(6);
  });

  it('gives the same result on repeated and concurrent calls (no state leaks between calls)', async () => {
    const pcm = sine(300, 22050, 0.3);
    const [a, b] = await Promise.all([resamplePcm16(pcm, 22050, 16000), resamplePcm16(pcm, 22050, 16000)]);
    const c = await resamplePcm16(pcm, 22050, 16000);
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(Array.from(a)).toEqual(Array.from(c));
  });

  it('rejects invalid rates', async () => {
    await expect(resamplePcm16(new Int16Array(4), 0, 16000)).rejects.toThrow(RangeError);
    await expect(resamplePcm16(new Int16Array(4), 16000, 1.5)).rejects.toThrow(RangeError);
  });
});
