import { describe, expect, it } from 'vitest';
import { csvCell, csvRecord } from '../../../src/shared/csv-cells.js';

// DESIGN §17.6: a CSV text cell a spreadsheet would run as a formula is written behind a `'`; numbers never.
describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://x")', `'=HYPERLINK("http://x")`],
    [`+cmd|' /C calc'!A0`, `'+cmd|' /C calc'!A0`],
    ['-1+1', `'-1+1`],
    ['@SUM(1)', `'@SUM(1)`],
    ['\t=1+1', `'\t=1+1`],
    ['\r=1+1', `'\r=1+1`],
    ['-Infinity', `'-Infinity`],
  ])('prefixes the text %j', (text, written) => {
    expect(csvCell(text)).toBe(written);
  });

  it('csvRecord prefixes the formula texts of a record and leaves numbers and every other text as they are', () => {
    const record = csvRecord([3, '=HYPERLINK("http://x")', -5, '-1+1', 'plain']);
    expect(record).toEqual([3, `'=HYPERLINK("http://x")`, -5, `'-1+1`, 'plain']);
    for (const value of [-5, 0, 1.5, -0.0123, 1e-7, true, null, undefined]) expect(csvCell(value)).toBe(value);
    for (const text of ['1e-7', '0.5', 'hello = world', "it's", '', ' =1', '{"a":"=1"}', 'ev_1']) expect(csvCell(text)).toBe(text);
  });

  it('judges a text by its type, not its look: a transcript or a name reading -5 or +5 is text (DESIGN §17.6: text cells, never numeric values)', () => {
    for (const text of ['-5', '+5', '-0.0123', '-.5']) expect(csvCell(text)).toBe(`'${text}`);
  });
});
