import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertValidText,
  codePoints,
  hasLoneSurrogate,
  isSpeakable,
  MAX_TEXT_CODE_POINTS,
  TextRuleError,
  textProblem,
} from '../../../src/shared/text-rules.js';

describe('shared text rules (DESIGN §4.6)', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(codePoints('a😀é')).toBe(3);
    expect(textProblem('😀a'.repeat(MAX_TEXT_CODE_POINTS / 2))).toBeUndefined();
    expect(textProblem('a'.repeat(MAX_TEXT_CODE_POINTS + 1))).toBe('too_long');
  });

  it('finds lone surrogates, high or low, anywhere; a proper pair is fine', () => {
    for (const text of ['\ud800', 'a\udc00b', 'hi \ude00\ud83d', '😀\ud83d']) expect([text, hasLoneSurrogate(text)]).toEqual([text, true]);
    for (const text of ['😀', 'a😀b', '']) expect(hasLoneSurrogate(text)).toBe(false);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 0xd800, max: 0xdfff }), (s, unit) => {
        expect(hasLoneSurrogate(s)).toBe(false);
        expect(textProblem(s + String.fromCharCode(unit))).toBe('lone_surrogate');
      }),
    );
  });

  it('finds nothing to speak without a letter or digit of any script after NFKC', () => {
    for (const text of ['😀🎉', '?!...', '— … ·', '♪ © °', '\u0301', '👩🏽‍💻']) expect([text, isSpeakable(text)]).toEqual([text, false]);
    for (const text of ['a', '42', 'Ⓐ', 'Ｈｉ', '²', '你好', '٣', 'ﬁ', 'Ελλάδα', 'I ❤️ NY']) expect([text, isSpeakable(text)]).toEqual([text, true]);
  });

  it('checks broken Unicode first, then empty, too long, nothing to speak', () => {
    expect(textProblem('  \ud800 ')).toBe('lone_surrogate');
    expect(textProblem(' \t\n')).toBe('empty');
    expect(textProblem('!'.repeat(MAX_TEXT_CODE_POINTS + 1))).toBe('too_long');
    expect(textProblem('!!')).toBe('nothing_to_speak');
    expect(textProblem('Hello.')).toBeUndefined();
  });

  it('throws a TextRuleError with the exact message and the prefix', () => {
    expect(() => assertValidText('🙂', 'Item 3: ')).toThrow(new TextRuleError('nothing_to_speak', 'Item 3: Text has nothing to speak'));
    expect(() => assertValidText('')).toThrow('Text must not be empty');
    expect(() => assertValidText('x'.repeat(2001), 'Text 0: ')).toThrow('Text 0: Text exceeds maximum length of 2000 characters');
    expect(() => assertValidText('ok')).not.toThrow();
  });
});
