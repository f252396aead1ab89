/**
 * Spelled English numbers to digits over a token list (DESIGN §8.6): cardinals (`thirty six` → `36`, never
 * `3006`), `and` inside numbers (`one hundred and five` → `105`), ordinals (`twenty first` → `21st`),
 * decimals (`three point five` → `3.5`), years (`nineteen eighty four` → `1984`), `percent` (`5%`) and
 * `dollars` (`$5`). Tokens already written in digits are never touched, so `21st`, `10:00`, `$5` survive,
 * and the output parses to itself (the normaliser is idempotent). A lone `one` stays a word (`one of
 * them`), as do lone `first` and `second` (`at first`, `a second`).
 */

/** What a number word contributes: a unit (0–19), a ten, `hundred` or a scale, and whether it is an ordinal. */
interface NumberWord {
  kind: 'unit' | 'ten' | 'hundred' | 'scale';
  value: number;
  ordinal: boolean;
}

const UNITS = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen';
const UNIT_ORDINALS = '- first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth';
const TENS = 'twenty thirty forty fifty sixty seventy eighty ninety';
const TEN_ORDINALS = 'twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth';
const SCALES: [string, string, number][] = [['thousand', 'thousandth', 1e3], ['million', 'millionth', 1e6], ['billion', 'billionth', 1e9], ['trillion', 'trillionth', 1e12]];

/** Every number word, looked up once per token. */
const NUMBER_WORDS = new Map<string, NumberWord>();
UNITS.split(' ').forEach((w, value) => NUMBER_WORDS.set(w, { kind: 'unit', value, ordinal: false }));
UNIT_ORDINALS.split(' ').forEach((w, value) => value > 0 && NUMBER_WORDS.set(w, { kind: 'unit', value, ordinal: true }));
TENS.split(' ').forEach((w, i) => NUMBER_WORDS.set(w, { kind: 'ten', value: 20 + 10 * i, ordinal: false }));
TEN_ORDINALS.split(' ').forEach((w, i) => NUMBER_WORDS.set(w, { kind: 'ten', value: 20 + 10 * i, ordinal: true }));
NUMBER_WORDS.set('hundred', { kind: 'hundred', value: 100, ordinal: false });
NUMBER_WORDS.set('hundredth', { kind: 'hundred', value: 100, ordinal: true });
for (const [cardinal, ordinal, value] of SCALES) {
  NUMBER_WORDS.set(cardinal, { kind: 'scale', value, ordinal: false });
  NUMBER_WORDS.set(ordinal, { kind: 'scale', value, ordinal: true });
}

/** The value of a cardinal unit word in `min..max` (`five` → 5), else undefined. */
function unit(word: string | undefined, min: number, max: number): number | undefined {
  const n = word === undefined ? undefined : NUMBER_WORDS.get(word);
  return n && n.kind === 'unit' && !n.ordinal && n.value >= min && n.value <= max ? n.value : undefined;
}

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
  const n = w === undefined ? undefined : NUMBER_WORDS.get(w);
  if (n?.kind === 'ten' && !n.ordinal) {
    const ones = unit(tokens[i + 1], 1, 9);
    return ones === undefined ? { value: n.value, end: i + 1 } : { value: n.value + ones, end: i + 2 };
  }
  const teen = unit(w, 10, 19);
  if (teen !== undefined) return { value: teen, end: i + 1 };
  const ones = w === 'oh' ? unit(tokens[i + 1], 1, 9) : undefined;
  return ones === undefined ? undefined : { value: ones, end: i + 2 };
}

/** A spelled number read from a token list: its value, where it ends, and how it was said. */
export interface SpelledNumber {
  value: number;
  /** The index after its last token. */
  end: number;
  /** Said as an ordinal (`fourth`, `twenty first`). */
  ordinal: boolean;
  /** Read as a year of two halves (`nineteen eighty four`). */
  year: boolean;
  /** How many number words it took (`and` not counted). */
  words: number;
}

/**
 * Reads the spelled number starting at `tokens[start]` (`one hundred and five`, `twenty first`, a year of two
 * halves unless `years` is false, so `fourteen thirty` can be a time), or undefined when none starts there.
 * The whisper-en normaliser and the entity matcher share it.
 */
export function readSpelledNumber(tokens: readonly string[], start: number, opts: { years?: boolean } = {}): SpelledNumber | undefined {
  let total = 0; // completed thousands/millions/… groups
  let group = 0; // the part below the last scale word
  let lastScale = Infinity;
  let i = start;
  let words = 0;
  let unitOpen = true; // a unit may follow (at the start, after a ten, after hundred or a scale)
  let tenOpen = true; // a ten may follow
  let ordinal = false;
  let prev: NumberWord['kind'] | undefined;
  for (; i < tokens.length && !ordinal; i++) {
    const w = tokens[i]!;
    const n = NUMBER_WORDS.get(w);
    if (n === undefined) {
      // `one hundred and five`: `and` only inside a number, when one below a hundred follows
      const next = tokens[i + 1] === undefined ? undefined : NUMBER_WORDS.get(tokens[i + 1]!);
      if (w === 'and' && (prev === 'hundred' || prev === 'scale') && group % 100 === 0 && (next?.kind === 'unit' || next?.kind === 'ten')) continue;
      break;
    }
    if (n.kind === 'unit') {
      // after a ten only 1..9 (`twenty one`); `zero` only alone
      if (!unitOpen || (prev === 'ten' && (n.value === 0 || n.value >= 10)) || (n.value === 0 && words > 0)) break;
      group += n.value;
      unitOpen = false;
      tenOpen = false;
    } else if (n.kind === 'ten') {
      if (!tenOpen) break;
      group += n.value;
      tenOpen = false;
      unitOpen = true;
    } else if (n.kind === 'hundred') {
      if (group === 0 || group >= 100 || prev === 'hundred') break;
      group *= 100;
      unitOpen = true;
      tenOpen = true;
    } else {
      if (group === 0 || n.value >= lastScale) break;
      total += group * n.value;
      group = 0;
      lastScale = n.value;
      unitOpen = true;
      tenOpen = true;
    }
    ordinal = n.ordinal;
    prev = n.kind;
    words++;
    if (opts.years !== false && words === 1 && !ordinal && group >= 10 && (n.kind === 'unit' || n.kind === 'ten')) {
      // A year: a first half of 10..99 in one word, then a second half (`nineteen eighty four`, `twenty twenty`).
      const half = yearHalf(tokens, i + 1);
      if (half) return { value: group * 100 + half.value, end: half.end, ordinal: false, year: true, words: 2 };
    }
  }
  if (words === 0) return undefined;
  return { value: total + group, end: i, ordinal, year: false, words };
}

/** Parses a spelled number starting at `tokens[start]`, or returns undefined when none starts there. */
function parseNumber(tokens: readonly string[], start: number): Parsed | undefined {
  const n = readSpelledNumber(tokens, start);
  if (!n) return undefined;
  if (n.year) return decorate(tokens, String(n.value), n.end);
  if (n.ordinal) {
    // A lone `first` or `second` is usually not a number (`at first`, `just a second`).
    if (n.words === 1 && n.value <= 2) return undefined;
    return { text: `${n.value}${ordinalSuffix(n.value)}`, end: n.end };
  }
  // A lone `one` stays a word (`one of them`, `the one`).
  if (n.words === 1 && n.value === 1 && !isNumberSuffix(tokens[n.end])) return undefined;
  return decorate(tokens, String(n.value), n.end);
}

/** Words after a number that make `one` a number (`one percent`, `one point five`). */
function isNumberSuffix(word: string | undefined): boolean {
  return word === 'percent' || word === '%' || word === 'point' || word === 'dollars' || word === 'dollar' || word === 'per';
}

/** Adds a decimal part (`point five`), then `%` (`percent`, `per cent`, a lone `%`) or `$` (`dollars`). */
function decorate(tokens: readonly string[], digits: string, end: number): Parsed {
  let text = digits;
  let i = end;
  if (tokens[i] === 'point' && unit(tokens[i + 1], 0, 9) !== undefined) {
    text += '.';
    for (i++; unit(tokens[i], 0, 9) !== undefined; i++) text += String(unit(tokens[i], 0, 9));
  }
  if (tokens[i] === 'percent' || tokens[i] === '%') return { text: `${text}%`, end: i + 1 };
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
    const c = w.charCodeAt(0);
    if (!(c >= 0x30 && c <= 0x39) && !NUMBER_WORDS.has(w)) {
      out.push(w); // neither a number word nor digits: the common case, one lookup
      i++;
      continue;
    }
    const parsed = parseNumber(tokens, i);
    if (parsed) {
      out.push(parsed.text);
      i = parsed.end;
    } else if (PLAIN_NUMBER.test(w) && (tokens[i + 1] === 'percent' || tokens[i + 1] === '%' || tokens[i + 1] === 'dollars' || tokens[i + 1] === 'dollar')) {
      // `5 percent`, `5 %` as `five percent`
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
