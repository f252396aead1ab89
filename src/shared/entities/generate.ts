import { createPrng } from '../stats.js';
import { spokenForm } from './spoken.js';
import type { Entity, EntityType } from './types.js';

/**
 * Seeded entity sentences for the entity probe (DESIGN §12.3): a value of each requested type, read in
 * one of several carrier sentences, so a run and its rerun say exactly the same things. `text` is what
 * the voice reads (and the reference for WER); `entity` is what must come back.
 */
export interface EntitySentence {
  text: string;
  entity: Entity;
}

/** Bounds of the probe's `entities.per_type` (DESIGN §12.3). */
export const ENTITY_PER_TYPE = { min: 1, max: 200, default: 10 } as const;

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const int = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
const pad = (n: number, width: number) => String(n).padStart(width, '0');

const SURNAMES = ['smith', 'garcia', 'nguyen', 'patel', 'johnson', 'kim', 'brown', 'lopez', 'miller', 'davis', 'wilson', 'moore'];
const DOMAINS = ['example.com', 'example.org', 'mail.example.net', 'acme.example.com'];
// Letters that are not read like a digit (O, I) nor easily confused in isolation by design of the code alphabet.
const CODE_LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';

/** A valid canonical value of `type`. */
export function randomEntityValue(type: EntityType, rng: Rng): string {
  switch (type) {
    case 'digits':
      return Array.from({ length: int(rng, 4, 8) }, () => String(int(rng, 0, 9))).join('');
    case 'phone':
      // NANP: area code and exchange start 2-9; 555-01xx is reserved for fiction.
      return `+1${int(rng, 2, 9)}${pad(int(rng, 0, 99), 2)}555${pad(int(rng, 100, 199), 4)}`;
    case 'number':
      return String(pick(rng, [int(rng, 0, 999), int(rng, 1_000, 99_999), int(rng, 100_000, 999_999)]));
    case 'money':
      return `${pick(rng, [int(rng, 1, 99), int(rng, 100, 9_999)])}.${pad(int(rng, 1, 99), 2)}`;
    case 'date': {
      const month = int(rng, 1, 12);
      const days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
      return `${int(rng, 2020, 2035)}-${pad(month, 2)}-${pad(int(rng, 1, days), 2)}`;
    }
    case 'time':
      return `${pad(int(rng, 0, 23), 2)}:${pad(int(rng, 0, 11) * 5, 2)}`;
    case 'email':
      return `${String.fromCharCode(97 + int(rng, 0, 25))}.${pick(rng, SURNAMES)}@${pick(rng, DOMAINS)}`;
    case 'code': {
      // At least one letter and one digit: a code, not a word or a number.
      const chars = Array.from({ length: 5 }, (_, i) => (i % 2 ? String(int(rng, 2, 9)) : CODE_LETTERS[int(rng, 0, CODE_LETTERS.length - 1)]!));
      return chars.join('');
    }
  }
}

/** Carrier sentences per type: `{}` is where the entity is read. */
const CARRIERS: Record<EntityType, readonly string[]> = {
  digits: ['Your verification code is {}.', 'Please enter {} when you are prompted.', 'The last digits of the card are {}.', 'The PIN for this account is {}.'],
  phone: ['You can reach our support line at {}.', 'Please call me back on {}.', 'The number on file is {}.', 'Dial {} to confirm your appointment.'],
  number: ['The warehouse holds {} units of this item.', 'We counted {} visitors last month.', 'The odometer reads {} miles.', 'There are {} seats in the stadium.'],
  money: ['Your balance is {}.', 'The total comes to {}.', 'A refund of {} was issued today.', 'Please pay {} by the end of the week.'],
  date: ['Your appointment is on {}.', 'The contract ends on {}.', 'We shipped the order on {}.', 'The payment is due on {}.'],
  time: ['The meeting starts at {}.', 'Your table is booked for {}.', 'The train leaves at {}.', 'We close at {} today.'],
  email: ['Send the invoice to {}.', 'My email address is {}.', 'Please write to {} for a copy.', 'The report goes to {}.'],
  code: ['Your booking reference is {}.', 'The tracking code is {}.', 'Quote reference {} when you call.', 'The voucher code is {}.'],
};

/**
 * `perType` seeded sentences for each type, in a fixed order (types as given, then index): the same
 * types, count and seed give the same sentences.
 */
export function entitySentences(types: readonly EntityType[], perType: number, seed: number): EntitySentence[] {
  const out: EntitySentence[] = [];
  for (const type of types) {
    // One stream per type, so adding a type leaves the others' sentences as they were.
    const rng = createPrng(seed * 31 + hash(type));
    for (let i = 0; i < perType; i++) {
      const entity: Entity = { type, value: randomEntityValue(type, rng) };
      out.push({ text: pick(rng, CARRIERS[type]).replace('{}', spokenForm(entity)), entity });
    }
  }
  return out;
}

/** A small stable number per type name (the type's own stream, independent of its position). */
function hash(s: string): number {
  let h = 0;
  for (const c of s) h = (h * 33 + c.charCodeAt(0)) >>> 0;
  return h % 100_003;
}
