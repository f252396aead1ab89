import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mixTracks } from '../../../../src/server/audio/mix.js';

describe('mixTracks (DESIGN §16.1)', () => {
  it('places turns at their offsets, sums overlaps and clips the sum once', () => {
    const a = Int16Array.from([1000, 2000, 30000, 30000]);
    const b = Int16Array.from([5, 6, 10000, -20000, 7]);
    const { pcm, sampleRate } = mixTracks([{ pcm: b, offset: 0 + 2 }, { pcm: a, offset: 0 }], 16_000, 10);
    expect(sampleRate).toBe(16_000);
    expect([...pcm]).toEqual([1000, 2000, 30005, 30006, 10000, -20000, 7, 0, 0, 0]);
    const c = mixTracks([{ pcm: Int16Array.from([30000, 30000]), offset: 0 }, { pcm: Int16Array.from([10000, -30000]), offset: 0 }], 16_000);
    expect([...c.pcm]).toEqual([32767, 0]);
  });

  it('equals the clipped 32-bit sum of every part, whatever the parts and their order', () => {
    const part = fc.record({ pcm: fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 40 }).map((x) => Int16Array.from(x)), offset: fc.integer({ min: 0, max: 30 }) });
    fc.assert(
      fc.property(fc.array(part, { maxLength: 5 }), (parts) => {
        const length = parts.reduce((m, p) => Math.max(m, p.offset + p.pcm.length), 0);
        const sum = new Array<number>(length).fill(0);
        for (const p of parts) p.pcm.forEach((s, i) => (sum[p.offset + i]! += s));
        const expected = sum.map((v) => Math.max(-32768, Math.min(32767, v)));
        expect([...mixTracks(parts, 16_000).pcm]).toEqual(expected);
      }),
      { numRuns: 300, seed: 34 },
    );
  });
});
