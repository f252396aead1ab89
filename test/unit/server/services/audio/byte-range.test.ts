import { describe, expect, it } from 'vitest';
import { resolveRange } from '../../../../../src/server/features/audio/byte-range.js';

describe('resolveRange (RFC 9110 byte ranges)', () => {
  it.each([
    ['bytes=0-0', { start: 0, end: 0 }],
    ['bytes=4-11', { start: 4, end: 11 }],
    ['bytes=90-', { start: 90, end: 99 }],
    ['bytes=90-500', { start: 90, end: 99 }],
    ['bytes=-10', { start: 90, end: 99 }],
    ['bytes=-500', { start: 0, end: 99 }],
    ['BYTES = 1 - 2', { start: 1, end: 2 }],
  ])('%s of 100 bytes', (header, want) => {
    expect(resolveRange(header, 100)).toEqual(want);
  });

  it.each(['bytes=100-', 'bytes=150-200', 'bytes=-0'])('%s of 100 bytes is unsatisfiable', (header) => {
    expect(resolveRange(header, 100)).toBe('unsatisfiable');
  });

  it.each([undefined, 'bytes=5-2', 'bytes=0-1,5-6', 'items=0-1', 'bytes=a-b', 'bytes=-'])('%s is ignored (whole resource)', (header) => {
    expect(resolveRange(header, 100)).toBeUndefined();
  });
});
