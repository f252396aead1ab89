import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cardBrand, CardError, luhnValid, summarizeCard } from '../../../../src/server/features/billing/card.js';
import { escapeHtml, html } from '../../../../src/server/html.js';

const now = new Date('2025-03-15T00:00:00Z');

describe('card checks', () => {
  it('accepts Luhn-valid test numbers and rejects a changed digit', () => {
    for (const n of ['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '3530111333300000', '4111111111111111']) {
      expect(luhnValid(n)).toBe(true);
      const last = Number(n.at(-1));
      expect(luhnValid(n.slice(0, -1) + String((last + 1) % 10))).toBe(false);
    }
  });

  it('detects any single-digit error (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 11, maxLength: 18 }), fc.nat(), fc.integer({ min: 1, max: 9 }), (body, pos, delta) => {
        // Append the check digit that makes `body` valid, then change one digit.
        let check = 0;
        for (let d = 0; d <= 9; d++) if (luhnValid(body.join('') + d)) check = d;
        const valid = body.join('') + check;
        expect(luhnValid(valid)).toBe(true);
        const i = pos % valid.length;
        const broken = valid.slice(0, i) + String((Number(valid[i]) + delta) % 10) + valid.slice(i + 1);
        expect(luhnValid(broken)).toBe(false);
      }),
    );
  });

  it('names the brand from the prefix', () => {
    expect(cardBrand('4242424242424242')).toBe('Visa');
    expect(cardBrand('5555555555554444')).toBe('Mastercard');
    expect(cardBrand('2223003122003222')).toBe('Mastercard');
    expect(cardBrand('378282246310005')).toBe('American Express');
    expect(cardBrand('6011111111111117')).toBe('Discover');
    expect(cardBrand('3530111333300000')).toBe('JCB');
    expect(cardBrand('9999999999999995')).toBe('Card');
  });

  it('keeps only brand, last 4 and expiry', () => {
    expect(summarizeCard({ number: '4242 4242-4242 4242', expMonth: '3', expYear: '25' }, now)).toEqual({
      brand: 'Visa',
      last4: '4242',
      expMonth: 3,
      expYear: 2025,
    });
  });

  it.each([
    [{ number: '4242 4242 4242 424x', expMonth: '1', expYear: '2030' }, 'only digits'],
    [{ number: '42424242', expMonth: '1', expYear: '2030' }, '12 to 19 digits'],
    [{ number: '4242424242424241', expMonth: '1', expYear: '2030' }, 'Card number is invalid'],
    [{ number: '4242424242424242', expMonth: '13', expYear: '2030' }, 'between 1 and 12'],
    [{ number: '4242424242424242', expMonth: '1', expYear: '30000' }, 'a year like'],
    [{ number: '4242424242424242', expMonth: '2', expYear: '2025' }, 'expired'],
  ])('refuses %j', (input, message) => {
    expect(() => summarizeCard(input, now)).toThrow(CardError);
    expect(() => summarizeCard(input, now)).toThrow(message);
  });
});

describe('html', () => {
  it('escapes interpolations, not the template', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
    const evil = '"><script>alert(1)</script>';
    expect(html`<input value="${evil}">`.value).toBe('<input value="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;">');
    expect(html`<ul>${['<b>', html`<li>ok</li>`]}</ul>`.value).toBe('<ul>&#60;b&#62;<li>ok</li></ul>');
  });
});
