import { readSpelledNumber } from '../normalizers/english-numbers.js';
import { entityTokens, texts, type Token } from './tokens.js';
import type { Entity, EntityResult, EntityType } from './types.js';

/**
 * The entity-aware matcher (DESIGN §12.3): is an entity's canonical value in a transcript, however the
 * vendor wrote it — digits or words, `oh` for zero, `double five`, `$12.50` or `twelve dollars fifty`,
 * `March 4th, 2027` or `3/4/2027`, `2:30 pm` or `two thirty p.m.`, `j dot smith at example dot com`,
 * `a b seven x two`? Pure and synchronous: the CLI, the API and the evaluation runner call the same code.
 */

// ---------------------------------------------------------------------------------------------------------
// Digit and character runs: digits, phone, number, code

const DIGIT_WORDS = new Map([
  ['zero', '0'], ['oh', '0'], ['o', '0'], ['nought', '0'], ['one', '1'], ['two', '2'], ['three', '3'], ['four', '4'],
  ['five', '5'], ['six', '6'], ['seven', '7'], ['eight', '8'], ['nine', '9'],
]);

// Letter names as transcribed when letters are read singly, and the NATO alphabet.
const LETTER_NAMES = new Map<string, string>([
  ['ay', 'a'], ['bee', 'b'], ['be', 'b'], ['see', 'c'], ['cee', 'c'], ['sea', 'c'], ['dee', 'd'], ['ee', 'e'], ['ef', 'f'], ['eff', 'f'],
  ['gee', 'g'], ['aitch', 'h'], ['eye', 'i'], ['jay', 'j'], ['kay', 'k'], ['el', 'l'], ['ell', 'l'], ['em', 'm'], ['en', 'n'],
  ['pee', 'p'], ['cue', 'q'], ['queue', 'q'], ['ar', 'r'], ['are', 'r'], ['ess', 's'], ['tee', 't'], ['tea', 't'], ['you', 'u'],
  ['vee', 'v'], ['ex', 'x'], ['why', 'y'], ['wye', 'y'], ['zee', 'z'], ['zed', 'z'],
  ['alpha', 'a'], ['alfa', 'a'], ['bravo', 'b'], ['charlie', 'c'], ['delta', 'd'], ['echo', 'e'], ['foxtrot', 'f'], ['golf', 'g'],
  ['hotel', 'h'], ['india', 'i'], ['juliet', 'j'], ['juliett', 'j'], ['kilo', 'k'], ['lima', 'l'], ['mike', 'm'], ['november', 'n'],
  ['oscar', 'o'], ['papa', 'p'], ['quebec', 'q'], ['romeo', 'r'], ['sierra', 's'], ['tango', 't'], ['uniform', 'u'], ['victor', 'v'],
  ['whiskey', 'w'], ['xray', 'x'], ['yankee', 'y'], ['zulu', 'z'],
]);

/** Symbols that a run of digits or characters reads through (`(415) 555-0132`, `four one five, five…`). */
const RUN_SEPARATORS = new Set([',', '-', '(', ')', '+', '/', '#']);

const SCALE_WORDS = new Map([['thousand', 1e3], ['million', 1e6], ['billion', 1e9]]);

/** `o` and `oh` may be the letter O or a zero: a run keeps them open and the comparison decides. */
const EITHER_O = '\u0000';

/** One character of a run; `soft` when it came from an everyday word (`be`, `see`, `a`) a sentence may hold. */
interface RunChar {
  c: string;
  soft: boolean;
}

// Letters whose spoken or written form is also an everyday word: a code may start or end next to them.
const SOFT_LETTER_WORDS = new Set(['a', 'i', 'o', 'oh', 'be', 'see', 'sea', 'you', 'are', 'why', 'eye', 'tea']);

/**
 * Splits the tokens into maximal runs of digits (and, for codes, letters): each run is the characters
 * read in order, separators ignored; any other word ends a run. `double five` is `55`; spelled numbers
 * count by their value (`forty eight` → `48`, `one hundred twenty five thousand` → `125000`).
 */
function runs(tokens: readonly Token[], letters: boolean): RunChar[][] {
  const words = texts(tokens);
  const out: RunChar[][] = [];
  let run: RunChar[] = [];
  const add = (chars: string, soft = false) => {
    for (const c of chars) run.push({ c, soft });
  };
  const end = () => {
    if (run.length) out.push(run);
    run = [];
  };
  for (let i = 0; i < tokens.length; ) {
    const t = tokens[i]!;
    const w = t.text;
    const next = tokens[i + 1];
    if (/^\d+$/.test(w) || /^\d+\.\d+$/.test(w)) {
      const scale = next ? SCALE_WORDS.get(next.text) : undefined;
      if (scale !== undefined && /^\d+$/.test(w)) {
        add(String(Number(w) * scale)); // `125 thousand`
        i += 2;
        continue;
      }
      add(w.replace('.', ''));
      i++;
      continue;
    }
    if (RUN_SEPARATORS.has(w) && run.length) {
      i++;
      continue;
    }
    // `415.555.0132`: a dot between digits with no space around it; a sentence's full stop ends the run.
    if (w === '.' && run.length && !t.spaced && next && !next.spaced && /^\d/.test(next.text)) {
      i++;
      continue;
    }
    if ((w === 'double' || w === 'triple') && next) {
      const isO = next.text === 'o' || next.text === 'oh';
      const c = isO && letters ? EITHER_O : (DIGIT_WORDS.get(next.text) ?? (/^\d$/.test(next.text) ? next.text : letters ? letterOf(next.text) : undefined));
      if (c !== undefined) {
        add(c.repeat(w === 'double' ? 2 : 3));
        i += 2;
        continue;
      }
    }
    if (w === 'o' || w === 'oh') {
      add(letters ? EITHER_O : '0', letters);
      i++;
      continue;
    }
    const spelled = readSpelledNumber(words, i);
    if (spelled && !spelled.ordinal) {
      add(String(spelled.value));
      i = spelled.end;
      continue;
    }
    const letter = letters ? letterOf(w) : undefined;
    if (letter !== undefined) {
      add(letter, SOFT_LETTER_WORDS.has(w));
      i++;
      continue;
    }
    if (letters && /^[a-z0-9]+$/.test(w) && /\d/.test(w)) {
      add(w); // `ab7x2`, `2nd` inside a code, written as one token
      i++;
      continue;
    }
    end();
    i++;
  }
  end();
  return out;
}

/** The run as text (digits mode: no open characters). */
const runText = (run: readonly RunChar[]): string => run.map((r) => r.c).join('');

/** A single letter, a letter's name or its NATO word → the letter. */
function letterOf(word: string): string | undefined {
  if (/^[a-z]$/.test(word)) return word;
  return LETTER_NAMES.get(word);
}

/** Characters match when equal; an open `o` matches `0` and `O`. */
function charMatches(r: string, v: string): boolean {
  return r === EITHER_O ? v === '0' || v === 'o' : r === v;
}

/**
 * A code is in a run when the run, less any everyday words at its ends (`it will be a b seven x two`),
 * spells it exactly.
 */
function codeInRun(run: readonly RunChar[], value: string): boolean {
  const v = value.toLowerCase();
  let start = 0;
  while (start <= run.length - v.length) {
    const slice = run.slice(start, start + v.length);
    const tailSoft = run.slice(start + v.length).every((r) => r.soft);
    if (tailSoft && slice.every((r, i) => charMatches(r.c, v[i]!))) return true;
    if (!run[start]!.soft) return false;
    start++;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// Amounts: money

const CURRENCY = new Set(['dollar', 'dollars', 'buck', 'bucks', 'usd']);
const CENTS = new Set(['cent', 'cents']);

/** A number at `i`: a numeral (`12`, `12.50`) or a spelled cardinal (no years: `twelve fifty` is not 1250). */
function numberAt(tokens: readonly Token[], words: readonly string[], i: number): { value: number; end: number; decimal: boolean } | undefined {
  const w = tokens[i]?.text;
  if (w === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(w)) return { value: Number(w), end: i + 1, decimal: w.includes('.') };
  const n = readSpelledNumber(words, i, { years: false });
  return n && !n.ordinal ? { value: n.value, end: n.end, decimal: false } : undefined;
}

/** Every amount of money said in the tokens, in cents. */
function amounts(tokens: readonly Token[]): number[] {
  const words = texts(tokens);
  const found: number[] = [];
  const cents = (dollars: number) => Math.round(dollars * 100);
  for (let i = 0; i < tokens.length; i++) {
    const w = words[i]!;
    if (w === '$' || w === 'usd') {
      const n = numberAt(tokens, words, i + 1);
      if (n) found.push(cents(n.value));
      continue;
    }
    const n = numberAt(tokens, words, i);
    if (!n) continue;
    const unit = words[n.end];
    if (unit !== undefined && CENTS.has(unit) && !n.decimal && n.value < 100) {
      found.push(n.value); // `fifty cents`
      continue;
    }
    if (unit === undefined || !CURRENCY.has(unit)) continue;
    let total = cents(n.value);
    // `twelve dollars and fifty cents`, `12 dollars 50`, `twelve dollars fifty`
    let j = n.end + 1;
    if (words[j] === 'and') j++;
    const c = n.decimal ? undefined : numberAt(tokens, words, j);
    if (c && !c.decimal && c.value < 100 && (CENTS.has(words[c.end] ?? '') || !CURRENCY.has(words[c.end] ?? ''))) total += c.value;
    found.push(total);
    i = n.end;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------
// Dates

const MONTHS = new Map<string, number>();
['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'].forEach((m, i) => {
  MONTHS.set(m, i + 1);
  MONTHS.set(m.slice(0, 3), i + 1);
});
MONTHS.set('sept', 9);

/** A day of the month at `i`: `4`, `4th`, `fourth`, `twenty first`, `the fourth`. */
function dayAt(tokens: readonly Token[], words: readonly string[], i: number): { day: number; end: number } | undefined {
  let j = i;
  if (words[j] === 'the') j++;
  const w = words[j];
  if (w === undefined) return undefined;
  const numeral = /^(\d{1,2})(st|nd|rd|th)?$/.exec(w);
  if (numeral) return { day: Number(numeral[1]), end: j + 1 };
  const n = readSpelledNumber(words, j, { years: false });
  return n && n.value >= 1 && n.value <= 31 ? { day: n.value, end: n.end } : undefined;
}

/** A year at `i`: `2027`, `twenty twenty seven`, `two thousand twenty seven`, `two thousand and five`. */
function yearAt(words: readonly string[], i: number): { year: number; end: number } | undefined {
  let j = i;
  while (words[j] === ',' || words[j] === 'of' || words[j] === 'in') j++;
  const w = words[j];
  if (w === undefined) return undefined;
  if (/^\d{4}$/.test(w)) return { year: Number(w), end: j + 1 };
  const n = readSpelledNumber(words, j);
  return n && !n.ordinal && n.value >= 1000 && n.value <= 2999 ? { year: n.value, end: n.end } : undefined;
}

const iso = (y: number, m: number, d: number) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

/** Every date said in the tokens, as ISO `YYYY-MM-DD` (US order for `3/4/2027`). */
function dates(tokens: readonly Token[]): string[] {
  const words = texts(tokens);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const isoMatch = /^(\d{4})-(\d{2})-(\d{2})$/.exec(w);
    if (isoMatch) out.push(w);
    const slash = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})$/.exec(w);
    if (slash) {
      const y = slash[3]!.length === 2 ? 2000 + Number(slash[3]) : Number(slash[3]);
      out.push(iso(y, Number(slash[1]), Number(slash[2])));
    }
    const month = MONTHS.get(w);
    if (month !== undefined) {
      // `March 4th, 2027`, `march the fourth twenty twenty seven`, `Mar. 4, 2027`
      const d = dayAt(tokens, words, words[i + 1] === '.' ? i + 2 : i + 1);
      const y = d && yearAt(words, d.end);
      if (d && y) out.push(iso(y.year, month, d.day));
    }
    // `4 March 2027`, `the fourth of march, twenty twenty seven`
    const d = dayAt(tokens, words, i);
    if (d) {
      let j = d.end;
      if (words[j] === 'of') j++;
      const m = MONTHS.get(words[j] ?? '');
      const y = m !== undefined ? yearAt(words, j + 1) : undefined;
      if (m !== undefined && y) out.push(iso(y.year, m, d.day));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Times

/** A meridiem at `i` (`am`, `p m`, `in the afternoon`): 'am' | 'pm' and where it ends. */
function meridiemAt(words: readonly string[], i: number): { half: 'am' | 'pm'; end: number } | undefined {
  const [a, b, c] = [words[i], words[i + 1], words[i + 2]];
  if (a === 'am' || a === 'pm') return { half: a, end: i + 1 };
  if ((a === 'a' || a === 'p') && b === 'm') return { half: a === 'a' ? 'am' : 'pm', end: i + 2 };
  if (a === 'in' && b === 'the' && (c === 'morning' || c === 'afternoon' || c === 'evening')) return { half: c === 'morning' ? 'am' : 'pm', end: i + 3 };
  if (a === 'at' && b === 'night') return { half: 'pm', end: i + 2 };
  if (a === 'tonight') return { half: 'pm', end: i + 1 };
  return undefined;
}

/** An hour said as a word or numeral at `i` (1..24; `two`, `14`). */
function hourAt(tokens: readonly Token[], words: readonly string[], i: number): { hour: number; end: number } | undefined {
  const w = words[i];
  if (w === undefined) return undefined;
  if (/^\d{1,2}$/.test(w)) return Number(w) <= 24 ? { hour: Number(w), end: i + 1 } : undefined;
  const n = readSpelledNumber(words, i, { years: false });
  // `twenty one` could be 21 o'clock: read only as far as an hour goes.
  return n && !n.ordinal && n.value <= 24 ? { hour: n.value, end: n.end } : undefined;
}

/** Minutes after an hour at `i`: `thirty`, `oh five`, `05`, `o'clock`; undefined when none is said. */
function minutesAt(words: readonly string[], i: number): { minutes: number; end: number } | undefined {
  const w = words[i];
  if (w === undefined) return undefined;
  if (w === "o'clock") return { minutes: 0, end: i + 1 };
  if (/^\d{2}$/.test(w)) return Number(w) < 60 ? { minutes: Number(w), end: i + 1 } : undefined;
  if (w === 'oh' || w === 'o') {
    const d = DIGIT_WORDS.get(words[i + 1] ?? '');
    return d !== undefined && d !== '0' ? { minutes: Number(d), end: i + 2 } : undefined;
  }
  const n = readSpelledNumber(words, i, { years: false });
  return n && !n.ordinal && n.value >= 10 && n.value < 60 ? { minutes: n.value, end: n.end } : undefined;
}

const hhmm = (h: number, m: number) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;

/** Applies a meridiem to an hour of a 12-hour clock (12 am is midnight, 12 pm noon). */
function to24(hour: number, half: 'am' | 'pm' | undefined): number | undefined {
  if (half === undefined) return hour === 24 ? 0 : hour;
  if (hour < 1 || hour > 12) return undefined;
  return half === 'am' ? hour % 12 : (hour % 12) + 12;
}

/** Every time of day said in the tokens, as 24-hour `HH:MM`. */
function times(tokens: readonly Token[]): string[] {
  const words = texts(tokens);
  const out: string[] = [];
  const push = (h: number | undefined, m: number) => {
    if (h !== undefined && h >= 0 && h < 24 && m >= 0 && m < 60) out.push(hhmm(h, m));
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === 'noon' || w === 'midday') push(12, 0);
    if (w === 'midnight') push(0, 0);
    const clock = /^(\d{1,2}):(\d{2})$/.exec(w);
    if (clock) {
      push(to24(Number(clock[1]), meridiemAt(words, i + 1)?.half), Number(clock[2]));
      continue;
    }
    // `half past two`, `quarter past two`, `quarter to three`
    if ((w === 'half' || w === 'quarter') && (words[i + 1] === 'past' || words[i + 1] === 'to' || words[i + 1] === 'after')) {
      const h = hourAt(tokens, words, i + 2);
      if (h) {
        const half = meridiemAt(words, h.end)?.half;
        const back = words[i + 1] === 'to';
        const minutes = w === 'half' ? 30 : back ? 45 : 15;
        push(to24(back ? ((h.hour + 10) % 12) + 1 : h.hour, half), minutes);
      }
      continue;
    }
    const h = hourAt(tokens, words, i);
    if (!h) continue;
    const m = minutesAt(words, h.end);
    const half = meridiemAt(words, m ? m.end : h.end);
    // A bare number is a time only with minutes in words or a meridiem (`two thirty`, `two pm`, `14 30` no).
    if (!m && !half) continue;
    if (m && !half && /^\d/.test(words[i]!)) continue;
    push(to24(h.hour, half?.half), m?.minutes ?? 0);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// E-mail addresses

const SPOKEN_SYMBOLS: [RegExp, string][] = [
  [/\bat\b/g, '@'],
  [/\bdot\b/g, '.'],
  [/\bunderscore\b/g, '_'],
  [/\b(?:dash|hyphen)\b/g, '-'],
  [/\bplus\b/g, '+'],
];

/** The transcript with spoken symbols as symbols and every space removed: an address reads straight. */
function squashed(transcript: string): string {
  // Digits read out inside an address (`smith four two`) become digits first.
  let text = transcript
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\b(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\b/g, (w) => DIGIT_WORDS.get(w)!);
  for (const [word, symbol] of SPOKEN_SYMBOLS) text = text.replace(word, symbol);
  return text.replace(/\s+/g, '');
}

// ---------------------------------------------------------------------------------------------------------

/** Is `entity` (canonical, valid) recovered in `transcript`? */
export function entityFound(entity: Entity, transcript: string): boolean {
  return finders[entity.type](entity.value, transcript);
}

const finders: Record<EntityType, (value: string, transcript: string) => boolean> = {
  digits: (value, t) => runs(entityTokens(t), false).some((r) => runText(r) === value),
  phone: (value, t) => {
    const national = value.slice(2);
    return runs(entityTokens(t), false).some((r) => runText(r) === national || runText(r) === `1${national}`);
  },
  number: (value, t) => runs(entityTokens(t), false).some((r) => runText(r) === value),
  code: (value, t) => runs(entityTokens(t), true).some((r) => codeInRun(r, value)),
  money: (value, t) => {
    const [dollars, cents] = value.split('.');
    const want = Number(dollars) * 100 + Number(cents);
    return amounts(entityTokens(t)).includes(want);
  },
  date: (value, t) => dates(entityTokens(t)).includes(value),
  time: (value, t) => times(entityTokens(t)).includes(value),
  email: (value, t) => squashed(t).includes(value),
};

/** Each entity with whether the transcript recovers it (the public matcher of `calculate-accuracy`). */
export function matchEntities(entities: readonly Entity[], transcript: string): EntityResult[] {
  return entities.map((e) => ({ type: e.type, value: e.value, found: entityFound(e, transcript) }));
}
