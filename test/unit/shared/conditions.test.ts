import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConditionError, formatCondition, parseCondition } from '../../../src/shared/conditions.js';

describe('parseCondition', () => {
  it.each([
    ['clean', { kind: 'clean' }],
    ['telephone', { kind: 'telephone' }],
    ['noise:5', { kind: 'noise', snrDb: 5 }],
    ['noise:-10', { kind: 'noise', snrDb: -10 }],
    ['noise:40', { kind: 'noise', snrDb: 40 }],
    ['noise:2.5', { kind: 'noise', snrDb: 2.5 }],
    ['noise:0', { kind: 'noise', snrDb: 0 }],
    ['speed:0.5', { kind: 'speed', factor: 0.5 }],
    ['speed:1.5', { kind: 'speed', factor: 1.5 }],
    ['speed:2', { kind: 'speed', factor: 2 }],
    ['speed:2.0', { kind: 'speed', factor: 2 }],
  ])('%s', (text, condition) => {
    expect(parseCondition(text)).toEqual(condition);
  });

  it.each([
    'noise', 'noise:', 'noise:41', 'noise:-11', 'noise:-10.5', 'noise:abc', 'noise:1e1', 'noise:0x10', 'noise: 5', 'noise:5 ', 'noise:+5', 'noise:5:5',
    'speed', 'speed:0.4', 'speed:2.1', 'speed:0', 'speed:-1', 'speed:.5', 'speed:1.', 'speed:Infinity', 'speed:NaN',
    'Clean', 'CLEAN', ' clean', 'telephone:8000', 'reverb', 'echo:5', '', ':', 'clean,telephone', '__proto__',
  ])('refuses %j', (text) => {
    expect(() => parseCondition(text)).toThrow(ConditionError);
    expect(() => parseCondition(text)).toThrow(expect.objectContaining({ message: `Unknown condition: ${text}`, condition: text }));
  });
});

describe('formatCondition', () => {
  it('writes the canonical text', () => {
    expect(formatCondition({ kind: 'clean' })).toBe('clean');
    expect(formatCondition({ kind: 'telephone' })).toBe('telephone');
    expect(formatCondition(parseCondition('noise:05'))).toBe('noise:5');
    expect(formatCondition(parseCondition('noise:-0'))).toBe('noise:0');
    expect(formatCondition(parseCondition('speed:1.50'))).toBe('speed:1.5');
    expect(formatCondition({ kind: 'noise', snrDb: 1e-7 })).toBe('noise:0.0000001');
  });

  it('parse(format(c)) is c for every condition in range (up to 6 decimals)', () => {
    const condition = fc.oneof(
      fc.constant({ kind: 'clean' as const }),
      fc.constant({ kind: 'telephone' as const }),
      // values with up to 6 decimals: what anyone writes in a condition
      fc.integer({ min: -10_000_000, max: 40_000_000 }).map((n) => ({ kind: 'noise' as const, snrDb: n / 1e6 })),
      fc.integer({ min: 500_000, max: 2_000_000 }).map((n) => ({ kind: 'speed' as const, factor: n / 1e6 })),
    );
    fc.assert(
      fc.property(condition, (c) => {
        expect(parseCondition(formatCondition(c))).toEqual(c);
      }),
      { numRuns: 2000 },
    );
  });
});
