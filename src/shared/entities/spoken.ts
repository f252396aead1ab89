import type { Entity } from './types.js';

/**
 * How a voice reads an entity (DESIGN §12.3): the words the synthesiser is given, so that what was said is
 * known exactly (`$12.50` → "twelve dollars and fifty cents"). Every spoken form parses back to its value
 * with the matcher (a property the tests check for every generated entity).
 */

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const ORDINAL_ONES = ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** 0..99 in words (`forty two`). */
function belowHundred(n: number): string {
  if (n < 20) return ONES[n]!;
  const unit = n % 10;
  return unit ? `${TENS[Math.floor(n / 10)]} ${ONES[unit]}` : TENS[Math.floor(n / 10)]!;
}

/** 0..999 in words (`one hundred twenty five`). */
function belowThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (!hundreds) return belowHundred(rest);
  return rest ? `${ONES[hundreds]} hundred ${belowHundred(rest)}` : `${ONES[hundreds]} hundred`;
}

/** A whole number in words, American style without `and` (`125000` → `one hundred twenty five thousand`). */
export function numberInWords(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Not a whole number: ${n}`);
  if (n === 0) return 'zero';
  const parts: string[] = [];
  for (const [scale, name] of [[1e12, 'trillion'], [1e9, 'billion'], [1e6, 'million'], [1e3, 'thousand']] as const) {
    if (n >= scale) {
      parts.push(`${belowThousand(Math.floor(n / scale))} ${name}`);
      n %= scale;
    }
  }
  if (n) parts.push(belowThousand(n));
  return parts.join(' ');
}

/** A day of the month as an ordinal (`4` → `fourth`, `21` → `twenty first`). */
export function ordinalInWords(n: number): string {
  if (n < 20) return ORDINAL_ONES[n]!;
  const unit = n % 10;
  const tens = TENS[Math.floor(n / 10)]!;
  return unit ? `${tens} ${ORDINAL_ONES[unit]}` : `${tens.slice(0, -1)}ieth`;
}

/** A year as people say it (`2027` → `twenty twenty seven`, `2005` → `two thousand five`, `1984` → `nineteen eighty four`). */
export function yearInWords(year: number): string {
  const high = Math.floor(year / 100);
  const low = year % 100;
  if (year >= 2000 && year < 2010) return numberInWords(year);
  if (low === 0) return `${belowHundred(high)} hundred`;
  return `${belowHundred(high)} ${low < 10 ? `oh ${ONES[low]}` : belowHundred(low)}`;
}

/** Each digit read on its own (`4821` → `four eight two one`). */
export const digitsInWords = (digits: string): string => [...digits].map((d) => ONES[Number(d)]).join(' ');

/** A time on a 12-hour clock (`14:30` → `two thirty p.m.`, `09:05` → `nine oh five a.m.`, `12:00` → `twelve o'clock p.m.`). */
function timeInWords(value: string): string {
  const [h, m] = value.split(':').map(Number) as [number, number];
  const hour = h % 12 === 0 ? 12 : h % 12;
  const minutes = m === 0 ? "o'clock" : m < 10 ? `oh ${ONES[m]}` : belowHundred(m);
  return `${ONES[hour]} ${minutes} ${h < 12 ? 'a.m.' : 'p.m.'}`;
}

/** An address read out (`j.smith@example.com` → `j dot smith at example dot com`). */
function emailInWords(value: string): string {
  return value
    .replace(/@/g, ' at ')
    .replace(/\./g, ' dot ')
    .replace(/_/g, ' underscore ')
    .replace(/-/g, ' dash ')
    .replace(/\+/g, ' plus ')
    .replace(/\d/g, (d) => ` ${ONES[Number(d)]} `)
    .replace(/\s+/g, ' ')
    .trim();
}

/** Money in dollars and cents (`12.50` → `twelve dollars and fifty cents`). */
function moneyInWords(value: string): string {
  const [d, c] = value.split('.').map(Number) as [number, number];
  const dollars = `${numberInWords(d)} ${d === 1 ? 'dollar' : 'dollars'}`;
  if (c === 0) return dollars;
  const cents = `${numberInWords(c)} ${c === 1 ? 'cent' : 'cents'}`;
  return d === 0 ? cents : `${dollars} and ${cents}`;
}

/** The words a voice says for a valid entity. */
export function spokenForm(entity: Entity): string {
  const v = entity.value;
  switch (entity.type) {
    case 'digits':
      return digitsInWords(v);
    case 'phone': {
      const n = v.slice(2);
      return `${digitsInWords(n.slice(0, 3))}, ${digitsInWords(n.slice(3, 6))}, ${digitsInWords(n.slice(6))}`;
    }
    case 'number':
      return numberInWords(Number(v));
    case 'money':
      return moneyInWords(v);
    case 'date': {
      const [y, m, d] = v.split('-').map(Number) as [number, number, number];
      return `${MONTH_NAMES[m - 1]} ${ordinalInWords(d)}, ${yearInWords(y)}`;
    }
    case 'time':
      return timeInWords(v);
    case 'email':
      return emailInWords(v);
    case 'code':
      return [...v].map((c) => (/\d/.test(c) ? ONES[Number(c)] : c)).join(' ');
  }
}
