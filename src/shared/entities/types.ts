/**
 * The entity types of the entity probe (DESIGN §12.3) and their canonical values: what a spoken entity
 * must come back as. Validation here is the one rule for the API (`POST /v1/stt/calculate-accuracy`), the
 * CLI (`stt accuracy`) and the evaluation's generator.
 */
export const ENTITY_TYPES = ['digits', 'phone', 'number', 'money', 'date', 'time', 'email', 'code'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** An entity in its canonical form (`{type: 'money', value: '12.50'}`). */
export interface Entity {
  type: EntityType;
  value: string;
}

/** Whether an entity was recovered from a transcript. */
export interface EntityResult extends Entity {
  found: boolean;
}

/** True for one of the eight types. */
export function isEntityType(type: string): type is EntityType {
  return (ENTITY_TYPES as readonly string[]).includes(type);
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True for an ISO date `YYYY-MM-DD` that exists (29 February only in leap years). */
function isIsoDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]!) return false;
  return !(month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)));
}

/** Each type's canonical form: the test and what to say when a value fails it. */
const CANONICAL: Record<EntityType, { test: (v: string) => boolean; expected: string }> = {
  digits: { test: (v) => /^\d{1,32}$/.test(v), expected: 'digits must be 1 to 32 digits, like 4821' },
  phone: { test: (v) => /^\+1[2-9]\d{2}[2-9]\d{6}$/.test(v), expected: 'phone must be a North American number in E.164, like +14155550132' },
  number: { test: (v) => /^(0|[1-9]\d{0,14})$/.test(v), expected: 'number must be a whole number without separators or leading zeros, like 125000' },
  money: { test: (v) => /^(0|[1-9]\d{0,11})\.\d{2}$/.test(v), expected: 'money must be an amount in dollars with two decimals, like 12.50' },
  date: { test: isIsoDate, expected: 'date must be an ISO date YYYY-MM-DD, like 2027-03-04' },
  time: { test: (v) => /^([01]\d|2[0-3]):[0-5]\d$/.test(v), expected: 'time must be 24-hour HH:MM, like 14:30' },
  email: {
    test: (v) => v.length <= 254 && /^[a-z0-9](?:[a-z0-9._+-]*[a-z0-9])?@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/.test(v) && !v.includes('..'),
    expected: 'email must be a lower-case address, like j.smith@example.com',
  },
  code: { test: (v) => /^[A-Z0-9]{2,16}$/.test(v), expected: 'code must be 2 to 16 upper-case letters and digits, like AB7X2' },
};

/** Why `{type, value}` is not a valid entity (the reason of `Invalid entity {i}: {reason}`), or undefined. */
export function entityProblem(type: string, value: unknown): string | undefined {
  if (!isEntityType(type)) return `unknown type '${type}' (expected one of ${ENTITY_TYPES.join(', ')})`;
  if (typeof value !== 'string') return `${type} value must be a string`;
  const rule = CANONICAL[type];
  return rule.test(value) ? undefined : rule.expected;
}
