import { describe, expect, it } from 'vitest';
import { resampleFiltered } from '../../../../src/server/audio/polyphase.js';

const tone = (hz: number, rate: number, seconds: number, amplitude = 10_000) =>
  Float64Array.from({ length: Math.round(rate * seconds) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate));

/** Amplitude of the `hz` component (projection on sine and cosine), edges excluded. */
function amplitudeAt(x: Float64Array, hz: number, rate: number): number {
  let s = 0;
  let c = 0;
  const from = Math.round(rate * 0.1);
  const to = x.length - from;
  for (let i = from; i < to; i++) {
    s += x[i]! * Math.sin((2 * Math.PI * hz * i) / rate);
    c += x[i]! * Math.cos((2 * Math.PI * hz * i) / rate);
  }
  return (2 * Math.hypot(s, c)) / (to - from);
}

const filter = { cutoff: 4000, transition: 1200, attenuationDb: 60 };

describe('resampleFiltered', () => {
  it('keeps a pass-band tone in place and at its amplitude (22.05 → 8 kHz)', () => {
    const out = resampleFiltered(tone(1000, 22_050, 1), 22_050, 8000, filter);
    expect(out.length).toBe(8000);
    expect(amplitudeAt(out, 1000, 8000)).toBeCloseTo(10_000, -1);
    // aligned: the delay of the filter is compensated (sample 4000 is at 0.5 s)
    expect(out[4000]! / 10_000).toBeCloseTo(Math.sin(2 * Math.PI * 1000 * 0.5), 1);
  });

  it('removes what would alias: a 6 kHz tone is at least 55 dB down after decimation to 8 kHz', () => {
    const out = resampleFiltered(tone(6000, 22_050, 1), 22_050, 8000, filter);
    const alias = amplitudeAt(out, 2000, 8000); // 6 kHz folds to 8 − 6 = 2 kHz
    expect(20 * Math.log10(alias / 10_000)).toBeLessThan(-55);
  });

  it('handles ratios with more phases than the table (rounded instants) and upsampling', () => {
    const down = resampleFiltered(tone(440, 22_050, 1), 22_050, 7_999, filter);
    expect(down.length).toBe(7_999);
    expect(amplitudeAt(down, 440, 7_999)).toBeCloseTo(10_000, -2);
    const up = resampleFiltered(tone(440, 8000, 1), 8000, 22_050, { cutoff: 3700, transition: 600, attenuationDb: 60 });
    expect(up.length).toBe(22_050);
    expect(amplitudeAt(up, 440, 22_050)).toBeCloseTo(10_000, -2);
  });

  it('returns nothing for nothing', () => {
    expect(resampleFiltered(new Float64Array(0), 22_050, 8000, filter)).toHaveLength(0);
  });
});
