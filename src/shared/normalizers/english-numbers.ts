/**
 * Spelled English numbers to digits over a token list (DESIGN §8.6): cardinals (`thirty six` → `36`, never
 * `3006`), `and` inside numbers (`one hundred and five` → `105`), ordinals (`twenty first` → `21st`),
 * decimals (`three point five` → `3.5`), years (`nineteen eighty four` → `1984`), `percent` (`5%`) and
 * `dollars` (`$5`). Tokens already written in digits are never touched, so `21st`, `10:00`, `$5` survive,
 * and the output parses to itself (the normaliser is idempotent). A lone `one` stays a word (`one of
 * them`), as do lone `first` and `second` (`at first`, `a second`).
 */

const ONES: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };
const ORDINAL_ONES: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
  eleventh: 11, twelfth: 12, thirteenth: 13, fourteenth: 14, fifteenth: 15, sixteenth: 16, seventeenth: 17, eighteenth: 18, nineteenth: 19,
};
const ORDINAL_TENS: Record<string, number> = {
  twentieth: 20, thirtieth: 30, fortieth: 40, fiftieth: 50, sixtieth: 60, seventieth: 70, eightieth: 80, ninetieth: 90,
};
const ORDINAL_SCALES: Record<string, number> = { hundredth: 100, thousandth: 1e3, millionth: 1e6, billionth: 1e9, trillionth: 1e12 };

const has = (table: Record<string, number>, word: string | undefined): word is string => word !== undefined && Object.hasOwn(table, word);

/** `1st`, `2nd`, `3rd`, `4th`, `11th`, `12th`, `13th`, `21st`, … */
function ordinalSuffix(n: number): string {
  const lastTwo = n % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return 'th';
  return ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
}

/** What one parse consumed: `end` is the index after its last token. */
interface Parsed {
  text: string;
  end: number;
}

/**
 * Reads the two-digit group of a year after its first half (`eighty four`, `twenty`, `nineteen`, `oh five`):
 * its value and end, or undefined when the tokens do not form one.
 */
function yearHalf(tokens: readonly string[], i: number): { value: number; end: number } | undefined {
  const w = tokens[i];
  if (has(TENS, w)) {
    const next = tokens[i + 1];
    if (has(ONES, next) && ONES[next]! >= 1 && ONES[next]! <= 9) return { value: TENS[w]! + ONES[next]!, end: i + 2 };
    return { value: TENS[w]!, end: i + 1 };
  }
  if (has(ONES, w) && ONES[w]! >= 10) return { value: ONES[w]!, end: i + 1 };
  if (w === 'oh' && has(ONES, tokens[i + 1]) && ONES[tokens[i + 1]!]! >= 1 && ONES[tokens[i + 1]!]! <= 9) return { value: ONES[tokens[i + 1]!]!, end: i + 2 };
  return undefined;
}

/** Parses a spelled number starting at `tokens[start]`, or returns undefined when none starts there. */
function parseNumber(tokens: readonly string[], start: number): Parsed | undefined {
  let total = 0; // completed thousands/millions/… groups
  let group = 0; // the part below the last scale word
  let lastScale = Infinity;
  let i = start;
  let words = 0;
  let onesOpen = true; // a ones word may follow (start, after a ten or after hundred/scale)
  let tensOpen = true; // a tens word may follow
  let ordinal = false;
  let prev: 'ones' | 'teen' | 'tens' | 'hundred' | 'scale' | undefined;
  for (; i < tokens.length && !ordinal; i++) {
    const w = tokens[i]!;
    if (has(ONES, w) || has(ORDINAL_ONES, w)) {
      const n = has(ONES, w) ? ONES[w]! : ORDINAL_ONES[w]!;
      // after a ten only 1..9 (`twenty one`); `zero` only alone
      if (!onesOpen || (prev === 'tens' && (n === 0 || n >= 10)) || (n === 0 && words > 0)) break;
      group += n;
      ordinal = has(ORDINAL_ONES, w);
      prev = n >= 10 ? 'teen' : 'ones';
      onesOpen = false;
      tensOpen = false;
    } else if (has(TENS, w) || has(ORDINAL_TENS, w)) {
      if (!tensOpen) break;
      group += has(TENS, w) ? TENS[w]! : ORDINAL_TENS[w]!;
      ordinal = has(ORDINAL_TENS, w);
      prev = 'tens';
      tensOpen = false;
      onesOpen = true;
    } else if (w === 'hundred' || w === 'hundredth') {
      if (group === 0 || group >= 100 || prev === 'hundred') break;
      group *= 100;
      ordinal = w === 'hundredth';
      prev = 'hundred';
      onesOpen = true;
      tensOpen = true;
    } else if (has(SCALES, w) || has(ORDINAL_SCALES, w)) {
      const scale = has(SCALES, w) ? SCALES[w]! : ORDINAL_SCALES[w]!;
      if (group === 0 || scale >= lastScale || scale === 100) break;
      total += group * scale;
      group = 0;
      lastScale = scale;
      ordinal = has(ORDINAL_SCALES, w);
      prev = 'scale';
      onesOpen = true;
      tensOpen = true;
    } else if (w === 'and' && (prev === 'hundred' || prev === 'scale')) {
      // `one hundred and five`: only when a number below a hundred follows
      const next = tokens[i + 1];
      if (!(has(ONES, next) || has(TENS, next) || has(ORDINAL_ONES, next) || has(ORDINAL_TENS, next)) || group % 100 !== 0) break;
      continue;
    } else break;
    words++;
    if (words === 1 && !ordinal && (prev === 'teen' || prev === 'tens')) {
      // A year: a first half of 10..99 in one word, then a second half (`nineteen eighty four`, `twenty twenty`).
      const half = yearHalf(tokens, i + 1);
      if (half) return decorate(tokens, String(group * 100 + half.value), half.end);
    }
  }
  if (words === 0) return undefined;
  const value = total + group;
  if (ordinal) {
    // A lone `first` or `second` is usually not a number (`at first`, `just a second`).
    if (words === 1 && value <= 2) return undefined;
    return { text: `${value}${ordinalSuffix(value)}`, end: i };
  }
  // A lone `one` stays a word (`one of them`, `the one`).
  if (words === 1 && value === 1 && !isNumberSuffix(tokens[i])) return undefined;
  return decorate(tokens, String(value), i);
}

/** Words after a number that make `one` a number (`one percent`, `one point five`). */
function isNumberSuffix(word: string | undefined): boolean {
  return word === 'percent' || word === 'point' || word === 'dollars' || word === 'dollar' || word === 'per';
}

/** Adds a decimal part (`point five`), then `%` (`percent`, `per cent`) or `$` (`dollars`). */
function decorate(tokens: readonly string[], digits: string, end: number): Parsed {
  let text = digits;
  let i = end;
  if (tokens[i] === 'point' && has(ONES, tokens[i + 1]) && ONES[tokens[i + 1]!]! <= 9) {
    text += '.';
    for (i++; has(ONES, tokens[i]) && ONES[tokens[i]!]! <= 9; i++) text += String(ONES[tokens[i]!]!);
  }
  if (tokens[i] === 'percent') return { text: `${text}%`, end: i + 1 };
  if (tokens[i] === 'per' && tokens[i + 1] === 'cent') return { text: `${text}%`, end: i + 2 };
  if (tokens[i] === 'dollars' || tokens[i] === 'dollar') return { text: `$${text}`, end: i + 1 };
  return { text, end: i };
}

/** Digits `%`/`$` attach to: a token of digits with at most one decimal point (`5`, `3.5`). */
const PLAIN_NUMBER = /^\d+(?:\.\d+)?$/;

/** Every spelled number of `tokens` as digits; other tokens as they are (a new array). */
export function spelledNumbersToDigits(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; ) {
    const w = tokens[i]!;
    const parsed = parseNumber(tokens, i);
    if (parsed) {
      out.push(parsed.text);
      i = parsed.end;
    } else if (PLAIN_NUMBER.test(w) && (tokens[i + 1] === 'percent' || tokens[i + 1] === 'dollars' || tokens[i + 1] === 'dollar')) {
      // `5 percent` as `five percent`
      const d = decorate(tokens, w, i + 1);
      out.push(d.text);
      i = d.end;
    } else if (PLAIN_NUMBER.test(w) && tokens[i + 1] === 'per' && tokens[i + 2] === 'cent') {
      out.push(`${w}%`);
      i += 3;
    } else {
      out.push(w);
      i++;
    }
  }
  return out;
}
