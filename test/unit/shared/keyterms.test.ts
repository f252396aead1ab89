import { describe, expect, test } from 'vitest';
import { DomainError } from '../../../src/shared/errors.js';
import { KeytermsError, KEYTERM_LIMITS, normalizeKeyterms } from '../../../src/shared/keyterms.js';

describe('normalizeKeyterms (DESIGN §12.4: 1..100 strings, each 1..50 characters)', () => {
  test('trims, keeps order, drops duplicates after trimming', () => {
    expect(normalizeKeyterms([' Kubernetes ', 'Grafana Loki', 'Kubernetes'])).toEqual(['Kubernetes', 'Grafana Loki']);
  });

  test('bounds are inclusive and count code points', () => {
    expect(normalizeKeyterms(['x'.repeat(50)])).toHaveLength(1);
    expect(normalizeKeyterms(['𝔁'.repeat(50)])).toHaveLength(1);
    expect(normalizeKeyterms(Array.from({ length: KEYTERM_LIMITS.maxTerms }, (_, i) => `t${i}`))).toHaveLength(100);
  });

  test.each([
    [[], 'Keyterms must hold 1..100 terms'],
    [Array.from({ length: 101 }, (_, i) => `t${i}`), 'Keyterms must hold 1..100 terms'],
    [[''], 'Keyterm 0 must be 1..50 characters'],
    [['a', ' \t '], 'Keyterm 1 must be 1..50 characters'],
    [['a', 'b', 'x'.repeat(51)], 'Keyterm 2 must be 1..50 characters'],
    [[7], 'Keyterm 0 must be 1..50 characters'],
  ])('%j → %s', (terms, message) => {
    expect(() => normalizeKeyterms(terms)).toThrow(new KeytermsError(message));
  });

  test('a broken list is a validation_failed domain error, which the routes answer as a 400 without translating it', () => {
    const err = (() => {
      try {
        normalizeKeyterms([]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'validation_failed', message: 'Keyterms must hold 1..100 terms' });
  });
});
