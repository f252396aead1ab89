import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ENTITY_TYPES,
  entityFound,
  entityProblem,
  entitySentences,
  matchEntities,
  numberInWords,
  randomEntityValue,
  spokenForm,
  yearInWords,
} from '../../../../src/shared/entities/index.js';
import { createPrng } from '../../../../src/shared/stats.js';
import { ENTITY_CASES } from './cases.js';

describe('the entity matcher on transcripts as vendors write them (DESIGN §12.3)', () => {
  it('holds at least 200 cases, each type with hits and misses', () => {
    expect(ENTITY_CASES.length).toBeGreaterThanOrEqual(200);
    for (const type of ENTITY_TYPES) {
      expect(ENTITY_CASES.some(([t, , , found]) => t === type && found), type).toBe(true);
      expect(ENTITY_CASES.some(([t, , , found]) => t === type && !found), type).toBe(true);
    }
  });

  it.each(ENTITY_CASES)('%s %s in %j → %s', (type, value, transcript, expected) => {
    expect(entityProblem(type, value)).toBeUndefined();
    expect(entityFound({ type, value }, transcript)).toBe(expected);
  });

  it('matchEntities answers each entity in order with its verdict', () => {
    expect(
      matchEntities(
        [
          { type: 'money', value: '12.50' },
          { type: 'date', value: '2027-03-04' },
        ],
        'That is $12.50 on March 5, 2027',
      ),
    ).toEqual([
      { type: 'money', value: '12.50', found: true },
      { type: 'date', value: '2027-03-04', found: false },
    ]);
  });
});

describe('canonical values', () => {
  it.each([
    ['digits', '4821'],
    ['phone', '+14155550132'],
    ['number', '125000'],
    ['money', '12.50'],
    ['date', '2027-03-04'],
    ['date', '2024-02-29'],
    ['time', '14:30'],
    ['email', 'j.smith@example.com'],
    ['code', 'AB7X2'],
  ])('%s %s is valid', (type, value) => expect(entityProblem(type, value)).toBeUndefined());

  it.each([
    ['ssn', '123', "unknown type 'ssn' (expected one of digits, phone, number, money, date, time, email, code)"],
    ['digits', '48a1', 'digits must be 1 to 32 digits, like 4821'],
    ['phone', '4155550132', 'phone must be a North American number in E.164, like +14155550132'],
    ['phone', '+44207946000', 'phone must be a North American number in E.164, like +14155550132'],
    ['number', '125,000', 'number must be a whole number without separators or leading zeros, like 125000'],
    ['number', '007', 'number must be a whole number without separators or leading zeros, like 125000'],
    ['money', '12.5', 'money must be an amount in dollars with two decimals, like 12.50'],
    ['money', '$12.50', 'money must be an amount in dollars with two decimals, like 12.50'],
    ['date', '2027-02-30', 'date must be an ISO date YYYY-MM-DD, like 2027-03-04'],
    ['date', '2023-02-29', 'date must be an ISO date YYYY-MM-DD, like 2027-03-04'],
    ['date', '03/04/2027', 'date must be an ISO date YYYY-MM-DD, like 2027-03-04'],
    ['time', '2:30', 'time must be 24-hour HH:MM, like 14:30'],
    ['time', '24:00', 'time must be 24-hour HH:MM, like 14:30'],
    ['email', 'J.Smith@example.com', 'email must be a lower-case address, like j.smith@example.com'],
    ['email', 'nobody', 'email must be a lower-case address, like j.smith@example.com'],
    ['code', 'ab7x2', 'code must be 2 to 16 upper-case letters and digits, like AB7X2'],
  ])('%s %j: %s', (type, value, reason) => expect(entityProblem(type, value)).toBe(reason));

  it('a value that is not a string is refused', () => expect(entityProblem('digits', 4821)).toBe('digits value must be a string'));
});

describe('spoken forms', () => {
  it.each([
    [{ type: 'digits', value: '4821' }, 'four eight two one'],
    [{ type: 'phone', value: '+14155550132' }, 'four one five, five five five, zero one three two'],
    [{ type: 'number', value: '125000' }, 'one hundred twenty five thousand'],
    [{ type: 'money', value: '12.50' }, 'twelve dollars and fifty cents'],
    [{ type: 'money', value: '1.01' }, 'one dollar and one cent'],
    [{ type: 'money', value: '0.75' }, 'seventy five cents'],
    [{ type: 'money', value: '250.00' }, 'two hundred fifty dollars'],
    [{ type: 'date', value: '2027-03-04' }, 'March fourth, twenty twenty seven'],
    [{ type: 'date', value: '2005-07-30' }, 'July thirtieth, two thousand five'],
    [{ type: 'time', value: '14:30' }, 'two thirty p.m.'],
    [{ type: 'time', value: '00:05' }, 'twelve oh five a.m.'],
    [{ type: 'time', value: '12:00' }, "twelve o'clock p.m."],
    [{ type: 'email', value: 'j.smith@example.com' }, 'j dot smith at example dot com'],
    [{ type: 'code', value: 'AB7X2' }, 'A B seven X two'],
  ] as const)('%j → %s', (entity, words) => expect(spokenForm(entity)).toBe(words));

  it('numbers and years in words', () => {
    expect(numberInWords(0)).toBe('zero');
    expect(numberInWords(1005)).toBe('one thousand five');
    expect(numberInWords(999_999)).toBe('nine hundred ninety nine thousand nine hundred ninety nine');
    expect(yearInWords(1984)).toBe('nineteen eighty four');
    expect(yearInWords(2010)).toBe('twenty ten');
    expect(yearInWords(2100)).toBe('twenty one hundred');
  });

  it('the spoken form of every generated entity is recovered from itself, and from its sentence', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ENTITY_TYPES), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (type, seed) => {
        const value = randomEntityValue(type, createPrng(seed));
        expect(entityProblem(type, value), value).toBeUndefined();
        const entity = { type, value };
        expect(entityFound(entity, spokenForm(entity)), `${value}: ${spokenForm(entity)}`).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('generated sentences are seeded, varied, valid and recoverable', () => {
    const a = entitySentences(['digits', 'money', 'date', 'code'], 25, 7);
    expect(entitySentences(['digits', 'money', 'date', 'code'], 25, 7)).toEqual(a);
    expect(entitySentences(['digits', 'money', 'date', 'code'], 25, 8)).not.toEqual(a);
    // A type's sentences do not depend on the other types asked for.
    expect(entitySentences(['money'], 25, 7)).toEqual(a.filter((s) => s.entity.type === 'money'));
    expect(a).toHaveLength(100);
    expect(new Set(a.map((s) => s.text.replace(/ .*/, ''))).size).toBeGreaterThan(4);
    for (const s of entitySentences([...ENTITY_TYPES], 50, 1)) {
      expect(entityProblem(s.entity.type, s.entity.value)).toBeUndefined();
      expect(entityFound(s.entity, s.text), s.text).toBe(true);
    }
  });
});
