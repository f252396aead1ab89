import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { groupPieces, joinPcm, splitSentences } from '../../../../../src/server/engines/tts/sentences.js';

describe('splitSentences', () => {
  it.each([
    ['Hello world. How are you? Fine!', ['Hello world.', 'How are you?', 'Fine!']],
    ['Mr. Smith met Dr. Jones at 3.14 p.m. today. Then he left.', ['Mr. Smith met Dr. Jones at 3.14 p.m. today.', 'Then he left.']],
    ['Use fruit, e.g. apples, i.e. the red ones. Good.', ['Use fruit, e.g. apples, i.e. the red ones.', 'Good.']],
    ['J. R. R. Tolkien wrote it. It was long.', ['J. R. R. Tolkien wrote it.', 'It was long.']],
    ['It costs $3.50 in the U.S. and more elsewhere.', ['It costs $3.50 in the U.S. and more elsewhere.']],
    ['Wait... what? Really?! Yes…  OK.', ['Wait... what?', 'Really?!', 'Yes…', 'OK.']],
    ['He said "Stop." Then he left.', ['He said "Stop."', 'Then he left.']],
    ['(It works.) Next one.', ['(It works.)', 'Next one.']],
    ['今日は晴れです。明日は雨！本当？はい', ['今日は晴れです。', '明日は雨！', '本当？', 'はい']],
    ['Title\nFirst line\r\n\r\nSecond. Third.', ['Title', 'First line', 'Second.', 'Third.']],
    ['approx. five people came. Version 2.0 is out.', ['approx. five people came.', 'Version 2.0 is out.']],
    ['No trailing punctuation', ['No trailing punctuation']],
    ['Hi. ... — OK.', ['Hi. ...', '— OK.']],
    ['...', ['...']],
    ['   ', []],
  ])('%j', (text, expected) => {
    expect(splitSentences(text)).toEqual(expected);
  });

  it('cuts a long sentence at commas, then spaces, never above maxChars', () => {
    const clause = 'and then the quick brown fox jumped over the fence';
    const long = Array.from({ length: 12 }, () => clause).join(', ') + '.';
    const pieces = splitSentences(long, { maxChars: 120 });
    expect(pieces.length).toBeGreaterThan(4);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(120);
    expect(pieces.slice(0, -1).every((p) => p.endsWith(','))).toBe(true);
    expect(pieces.join(' ')).toBe(long);

    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const cut = splitSentences(words, { maxChars: 50 });
    for (const p of cut) expect(p.length).toBeLessThanOrEqual(50);
    expect(cut.join(' ')).toBe(words);
  });

  it('hard-cuts text without spaces without splitting surrogate pairs', () => {
    const emoji = '😀'.repeat(100);
    const pieces = splitSentences(emoji, { maxChars: 25 });
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(25);
      expect(p).toMatch(/^(?:\uD83D\uDE00)+$/);
    }
    expect(pieces.join('')).toBe(emoji);
  });

  it('property: no piece is empty or too long, and no non-space character is lost or reordered', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('Mr.', 'Hello', 'world', '.', '!', '?', '…', ',', ' ', '\n', '3.14', 'e.g.', 'x', '。', '😀', '"', 'Yes.'), { maxLength: 200 }).map((a) => a.join('')),
        fc.integer({ min: 20, max: 300 }),
        (text, maxChars) => {
          const pieces = splitSentences(text, { maxChars });
          for (const p of pieces) {
            expect(p.trim()).toBe(p);
            expect(p.length).toBeGreaterThan(0);
          }
          // merged punctuation-only pieces may exceed maxChars slightly; speakable cuts never do
          const strip = (s: string) => s.replace(/\s+/g, '');
          expect(strip(pieces.join(''))).toBe(strip(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('groupPieces', () => {
  const sentences = Array.from({ length: 30 }, (_, i) => `This is sentence number ${i} of the text.`);

  it('merges short sentences into about `parts` groups, in order', () => {
    const groups = groupPieces(sentences, { parts: 6, maxChars: 400 });
    expect(groups.length).toBeGreaterThanOrEqual(6);
    expect(groups.length).toBeLessThanOrEqual(8);
    expect(groups.join(' ')).toBe(sentences.join(' '));
  });

  it('never exceeds maxChars and keeps a single short text as one piece', () => {
    for (const g of groupPieces(sentences, { parts: 1, maxChars: 100 })) expect(g.length).toBeLessThanOrEqual(100);
    expect(groupPieces(['One.', 'Two.'], { parts: 6, maxChars: 250 })).toEqual(['One.', 'Two.']);
    expect(groupPieces(['Only one.'], { parts: 6, maxChars: 250 })).toEqual(['Only one.']);
  });

  it('adds a period where merged lines had none', () => {
    expect(groupPieces(['Title', 'Body text.'], { parts: 1, maxChars: 250 })).toEqual(['Title. Body text.']);
  });
});

describe('joinPcm', () => {
  it('joins in order with silence between pieces only', () => {
    const out = joinPcm([Int16Array.from([1, 2]), Int16Array.from([3]), Int16Array.from([4, 5])], 1000, 3);
    expect(Array.from(out)).toEqual([1, 2, 0, 0, 0, 3, 0, 0, 0, 4, 5]);
  });

  it('uses 150 ms by default and passes a single piece through', () => {
    expect(joinPcm([new Int16Array(10), new Int16Array(10)], 16000).length).toBe(20 + 2400);
    const one = Int16Array.from([7]);
    expect(joinPcm([one], 16000)).toBe(one);
  });
});
