/**
 * Payment-card checks of the billing portal. The full number only passes through these functions:
 * what is kept is the brand, the last four digits and the expiry (DESIGN §4.16).
 */

/** True when `digits` (only 0-9) passes the Luhn checksum. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** The card brand from the number's issuer prefix (IIN ranges of the major networks), else `Card`. */
export function cardBrand(digits: string): string {
  const p2 = Number(digits.slice(0, 2));
  const p3 = Number(digits.slice(0, 3));
  const p4 = Number(digits.slice(0, 4));
  const p6 = Number(digits.slice(0, 6));
  if (digits.startsWith('4')) return 'Visa';
  if ((p2 >= 51 && p2 <= 55) || (p6 >= 222100 && p6 <= 272099)) return 'Mastercard';
  if (p2 === 34 || p2 === 37) return 'American Express';
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649)) return 'Discover';
  if (p4 >= 3528 && p4 <= 3589) return 'JCB';
  if (p2 === 36 || p2 === 38 || (p3 >= 300 && p3 <= 305)) return 'Diners Club';
  if (p2 === 62) return 'UnionPay';
  return 'Card';
}

/** What the portal keeps of a card. */
export interface CardSummary {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** Why a card was refused, worded for the page. */
export class CardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CardError';
  }
}

/**
 * Validates a card entered on the portal (spaces and dashes allowed in the number; 2- or 4-digit year)
 * and returns only its summary; throws CardError with a message for the page.
 */
export function summarizeCard(input: { number: string; expMonth: string; expYear: string }, now: Date): CardSummary {
  const digits = input.number.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(digits)) throw new CardError('Card number must contain only digits');
  if (digits.length < 12 || digits.length > 19) throw new CardError('Card number must have 12 to 19 digits');
  if (!luhnValid(digits)) throw new CardError('Card number is invalid: please check it and try again');
  const month = /^\d{1,2}$/.test(input.expMonth.trim()) ? Number(input.expMonth.trim()) : NaN;
  if (!(month >= 1 && month <= 12)) throw new CardError('Expiry month must be between 1 and 12');
  const yearText = input.expYear.trim();
  let year = /^\d{2}$|^\d{4}$/.test(yearText) ? Number(yearText) : NaN;
  if (yearText.length === 2) year += 2000;
  if (!(year >= 2000 && year <= 2099)) throw new CardError('Expiry year must be a year like 2030');
  const current = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (year * 12 + (month - 1) < current) throw new CardError('Card has expired');
  if (year > now.getUTCFullYear() + 20) throw new CardError('Expiry year is too far in the future');
  return { brand: cardBrand(digits), last4: digits.slice(-4), expMonth: month, expYear: year };
}
