import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizeText } from '../../../src/shared/normalize.js';
import { getNormalizer, isNormalizerName, normalizerAt, NORMALIZER_NAMES, UnknownNormalizerError } from '../../../src/shared/normalizers/index.js';
import { scoreResult } from '../../../src/server/features/evaluations/scoring.js';
import { britishToAmerican } from '../../../src/shared/normalizers/english-words.js';
import { calculateAccuracy } from '../../../src/shared/accuracy.js';

const whisper = getNormalizer('whisper-en');

/** Input → output of `whisper-en` (DESIGN §8.6), the known failure modes of other normalisers first. */
const CASES: [string, string][] = [
  // Known failure modes of other normalisers (EVALUATION-NOTES.md)
  ["Mario's car", "mario's car"], // a possessive is not `is`
  ["The dog's bone", "the dog's bone"],
  ["James's book", "james's book"],
  ['the 21st century', 'the 21st century'], // not `21 saint`
  ['on the 1st and 2nd of May', 'on the 1st and 2nd of may'],
  ['the 3rd time', 'the 3rd time'],
  ['at 10:00 AM', 'at 10:00 am'], // the colon survives
  ['at 10:30 p.m.', 'at 10:30 pm'],
  ['twelve!', '12'], // punctuation does not stop number parsing
  ['twelve, five.', '12 5'],
  ['nineteen eighty four.', '1984'],
  ['"thirty six"', '36'],
  ['thirty six', '36'], // not `3006`
  ['forty two', '42'],
  ['ninety nine', '99'],
  ['20mm', '20mm'], // a unit is not a filler
  ['20 mm of rain', '20 mm of rain'],
  ['mm, 20 mm', '20 mm'],
  // Written numbers and symbols survive
  ['$5', '$5'],
  ['It costs $5.', 'it costs $5'],
  ['$ 5', '$5'],
  ['$5.50', '$5.50'],
  ['€20', '€20'],
  ['3.5', '3.5'],
  ['pi is 3.14159', 'pi is 3.14159'],
  ['5%', '5%'],
  ['5 %', '5%'],
  ['five %', '5%'],
  ['one %', '1%'],
  ['a % b', 'a b'],
  ['5 % %', '5%'],
  ['1,000', '1000'],
  ['1,234,567 people', '1234567 people'],
  ['in 1984', 'in 1984'],
  ['the 1960s', 'the 1960s'],
  ['version 2.0.1', 'version 2.0.1'],
  ['the end.', 'the end'],
  ['It was 5.', 'it was 5'],
  // Cardinals
  ['zero', '0'],
  ['two', '2'],
  ['ten', '10'],
  ['eleven', '11'],
  ['nineteen', '19'],
  ['twenty', '20'],
  ['twenty one', '21'],
  ['twenty-one', '21'],
  ['Twenty-One', '21'],
  ['fifty five', '55'],
  ['one hundred', '100'],
  ['one hundred and five', '105'],
  ['one hundred five', '105'],
  ['two hundred and thirty four', '234'],
  ['nine hundred ninety nine', '999'],
  ['one thousand', '1000'],
  ['two thousand and five', '2005'],
  ['three thousand four hundred and fifty six', '3456'],
  ['one million', '1000000'],
  ['one million two hundred thousand', '1200000'],
  ['five hundred thousand', '500000'],
  ['two billion', '2000000000'],
  ['seven trillion', '7000000000000'],
  ['six seven', '6 7'],
  ['four five six', '4 5 6'],
  ['twenty one twenty two', '21 22'],
  ['a hundred', 'a hundred'],
  ['hundreds of people', 'hundreds of people'],
  ['thousands', 'thousands'],
  ['rock and roll', 'rock and roll'],
  ['one hundred and', '100 and'],
  ['five and six', '5 and 6'],
  ['twenty and', '20 and'],
  // A lone `one` stays a word
  ['one', 'one'],
  ['one of them', 'one of them'],
  ['the one', 'the one'],
  ['one two three', 'one 2 3'],
  ['no one', 'no one'],
  ['one hundred', '100'],
  ['one percent', '1%'],
  ['one point five', '1.5'],
  ['one dollar', '$1'],
  ['twenty one', '21'],
  // Ordinals
  ['twenty first', '21st'],
  ['twenty-first century', '21st century'],
  ['twenty second', '22nd'],
  ['thirty third', '33rd'],
  ['forty fourth', '44th'],
  ['the fifth', 'the 5th'],
  ['third', '3rd'],
  ['eleventh', '11th'],
  ['twelfth', '12th'],
  ['thirteenth', '13th'],
  ['twentieth', '20th'],
  ['one hundredth', '100th'],
  ['one hundred and first', '101st'],
  ['two thousandth', '2000th'],
  ['first', 'first'],
  ['at first', 'at first'],
  ['just a second', 'just a second'],
  ['first of all', 'first of all'],
  // Decimals, percent, dollars
  ['three point five', '3.5'],
  ['three point one four', '3.14'],
  ['zero point five', '0.5'],
  ['twenty point two five', '20.25'],
  ['five percent', '5%'],
  ['five per cent', '5%'],
  ['twenty five percent', '25%'],
  ['5 percent', '5%'],
  ['3.5 percent', '3.5%'],
  ['one hundred percent', '100%'],
  ['five dollars', '$5'],
  ['twenty dollars', '$20'],
  ['the point is', 'the point is'],
  ['percent', 'percent'],
  // Years
  ['nineteen eighty four', '1984'],
  ['in nineteen ninety nine', 'in 1999'],
  ['twenty twenty', '2020'],
  ['twenty twenty four', '2024'],
  ['nineteen oh five', '1905'],
  ['eighteen hundred', '1800'],
  ['nineteen hundred and ten', '1910'],
  ['two thousand and one', '2001'],
  // Contractions (possessives kept)
  ["won't", 'will not'],
  ["can't", 'can not'],
  ["don't", 'do not'],
  ["Don't", 'do not'],
  ['don\u2019t', 'do not'],
  ["isn't", 'is not'],
  ["wasn't", 'was not'],
  ["couldn't", 'could not'],
  ["shouldn't", 'should not'],
  ["they're", 'they are'],
  ["we're", 'we are'],
  ["I've", 'i have'],
  ["they've", 'they have'],
  ["I'll", 'i will'],
  ["she'll", 'she will'],
  ["I'm", 'i am'],
  ["let's", 'let us'],
  ["Let's go", 'let us go'],
  ["it's", 'it is'],
  ["that's right", 'that is right'],
  ["what's up", 'what is up'],
  ["there's a cat", 'there is a cat'],
  ["he's here", 'he is here'],
  ["the cat's whiskers", "the cat's whiskers"],
  ["John's", "john's"],
  ["rock'n'roll", "rock'n'roll"],
  ["'quoted'", 'quoted'],
  // Titles
  ['Mr. Smith', 'mister smith'],
  ['Mr Smith', 'mister smith'],
  ['Mrs. Jones', 'missus jones'],
  ['Dr. Who', 'doctor who'],
  ['Dr Jekyll and Mr Hyde', 'doctor jekyll and mister hyde'],
  ['Ms. Brown', 'miss brown'],
  ['St. Louis', 'st louis'],
  // Brackets and fillers
  ['[laughter] hello', 'hello'],
  ['hello (inaudible) world', 'hello world'],
  ['<unk> yes', 'yes'],
  ['um, I think, uh, yes', 'i think yes'],
  ['hmm mm mhm er ah', ''],
  ['Umm well', 'well'],
  ['(all of it)', ''],
  ['the [big] (red) dog', 'the dog'],
  // British → American
  ['colour', 'color'],
  ['The colours', 'the colors'],
  ['favourite', 'favorite'],
  ['organise', 'organize'],
  ['organisation', 'organization'],
  ['realised', 'realized'],
  ['analyse', 'analyze'],
  ['centre', 'center'],
  ['theatre', 'theater'],
  ['travelling', 'traveling'],
  ['cancelled', 'canceled'],
  ['defence', 'defense'],
  ['catalogue', 'catalog'],
  ['grey', 'gray'],
  ['programme', 'program'],
  ['neighbourhood', 'neighborhood'],
  ['behaviour', 'behavior'],
  ['jewellery', 'jewelry'],
  ['aluminium', 'aluminum'],
  ['paediatrician', 'pediatrician'],
  ["the colour's depth", "the color's depth"],
  ['color', 'color'],
  // Rule 12 still applies
  ['Hello,   WORLD!', 'hello world'],
  ['\ufb01ne', 'fine'],
  ['¿Qué tal?', 'qué tal'],
  ['a\u00a0b\u2003c', 'a b c'],
  ['well-known', 'well known'],
  ['and/or', 'and or'],
  ['', ''],
  ['   ', ''],
  ['!!!', ''],
];

describe('whisper-en normaliser', () => {
  it(`has at least 150 table cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(150);
  });

  it.each(CASES)('%j → %j', (input, output) => {
    expect(whisper.normalize(input)).toBe(output);
  });

  it('makes a spelled and a written transcript score WER 0', () => {
    const r = calculateAccuracy("Mr. Smith won't pay twenty one percent of the colour bill.", 'mister smith will not pay 21% of the color bill', { normalizer: 'whisper-en' });
    expect(r).toMatchObject({ wer: 0, cer: 0, normalizer: { name: 'whisper-en', version: 1 } });
    expect(calculateAccuracy("Mr. Smith won't pay", 'mister smith will not pay').wer).toBeGreaterThan(0);
  });

  const anyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.array(
      fc.constantFrom('one', 'twenty', 'first', 'hundred', 'and', 'point', 'five', 'percent', 'per', 'cent', 'dollars', 'oh', 'nineteen', 'thousand', "won't", "mario's", 'Mr.', 'colour', 'um', '[x]', '(y)', '21st', '10:00', '$5', '3.5', '%', '-', ',', '.', "'", 'É', 'ß', '\u0130', 'ǅ', '\u2126', ' '),
      { maxLength: 25 },
    ).map((ws) => ws.join(' ')),
    fc.array(fc.constantFrom('one', 'twenty', 'first', 'hundred', 'and', 'point', 'five', '-', '5', '%', '$', '.', ':', ',', "'", 'mm', 'um', 'x'), { maxLength: 25 }).map((ws) => ws.join('')),
  );

  it('is idempotent: normalising twice equals normalising once', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const once = whisper.normalize(text);
        expect(whisper.normalize(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws and never outputs upper case or stray white space', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const out = whisper.normalize(text);
        expect(out).toBe(out.toLowerCase());
        // White space is Unicode's White_Space (rule 12), not JavaScript's \s and trim(), which also take U+FEFF.
        expect(out).not.toMatch(/^\p{White_Space}|\p{White_Space}$/u);
        expect(out).not.toMatch(/\p{White_Space}\p{White_Space}/u);
      }),
      { numRuns: 3000 },
    );
  });

  it('stays linear on hostile input (unclosed brackets, long runs of spaces): the public endpoint runs it', () => {
    // Patterns like \[[^\]]*\] or \s*% rescan the rest of the text from every candidate: minutes here.
    const n = 300_000;
    expect(whisper.normalize('['.repeat(n))).toBe('');
    expect(whisper.normalize('('.repeat(n) + 'x')).toBe('x');
    expect(whisper.normalize('5' + ' '.repeat(n) + 'x')).toBe('5 x');
    expect(whisper.normalize(' %'.repeat(n / 2))).toBe('');
  });

  it('the British table has at least 500 pairs, lower case, and no American form is itself a British key', () => {
    const table = britishToAmerican();
    expect(table.size).toBeGreaterThanOrEqual(500);
    for (const [british, american] of table) {
      expect(british).toMatch(/^[a-z]+$/);
      expect(american).toMatch(/^[a-z]+$/);
      expect(british).not.toBe(american);
      expect(table.has(american), `${american} is also a British key`).toBe(false);
      expect(whisper.normalize(british)).toBe(american);
    }
  });
});

describe('normaliser registry', () => {
  it('names basic (rule 12) and whisper-en, each with a version', () => {
    expect(NORMALIZER_NAMES).toEqual(['basic', 'whisper-en']);
    expect(getNormalizer('basic')).toMatchObject({ name: 'basic', version: 2 });
    expect(getNormalizer('basic').normalize('Hello, World!')).toBe(normalizeText('Hello, World!'));
    expect(getNormalizer('whisper-en')).toMatchObject({ name: 'whisper-en', version: 1 });
  });

  it('refuses an unknown name with the API message', () => {
    expect(isNormalizerName('whisper')).toBe(false);
    expect(isNormalizerName('toString')).toBe(false);
    expect(() => getNormalizer('whisper')).toThrow(UnknownNormalizerError);
    expect(() => getNormalizer('constructor')).toThrow('Unknown normalizer: constructor');
    // calculateAccuracy checks the name even when raw tokens are compared, as the API does
    expect(() => calculateAccuracy('a', 'a', { normalize: false, normalizer: 'x' as 'basic' })).toThrow(UnknownNormalizerError);
    expect(calculateAccuracy('a', 'a', { normalize: false, normalizer: 'whisper-en' })).not.toHaveProperty('normalizer');
  });

  it('keeps basic v1 for an evaluation recorded with it: one started before the upgrade is not scored half by each version', () => {
    expect(normalizerAt('basic', 2)).toBe(getNormalizer('basic'));
    expect(normalizerAt('whisper-en', 1)).toBe(getNormalizer('whisper-en'));
    const v1 = normalizerAt('basic', 1);
    expect(v1).toMatchObject({ name: 'basic', version: 1 });
    expect(v1.normalize('He was ill-disposed, and/or Tired!')).toBe('he was illdisposed andor tired');
    expect(calculateAccuracy('he was ill-disposed', 'he was ill disposed', { normalizer: v1 })).toMatchObject({ wer: 0.6667, normalizer: { name: 'basic', version: 1 } });
    expect(calculateAccuracy('he was ill-disposed', 'he was ill disposed')).toMatchObject({ wer: 0, normalizer: { name: 'basic', version: 2 } });
    const answer = { transcript: 'he was ill disposed', latency_ms: 5, confidence: null };
    expect(scoreResult('He was ill-disposed.', answer, v1)).toMatchObject({ wer: 0.6667, substitutions: 1, insertions: 1, reference_words: 3 });
    expect(scoreResult('He was ill-disposed.', answer, 'basic')).toMatchObject({ wer: 0, reference_words: 4 });
    expect(() => normalizerAt('basic', 3)).toThrow('This build has no basic normaliser of version 3');
    expect(() => normalizerAt('whisper-en', 2)).toThrow('This build has no whisper-en normaliser of version 2');
  });
});
