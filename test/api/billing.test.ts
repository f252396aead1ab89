import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { addCharactersUsed } from '../../src/server/features/limits/usage-repository.js';
import { storedBytes } from '../helpers/backend-db.js';

/** A clock tests can move (link expiry, billing periods). */
const clock = { t: Date.parse('2025-03-15T12:00:00.000Z'), now() { return new Date(this.t); } };

describe('billing API and portal', () => {
  let server: TestServer;
  let userId: string;
  const api = (path: string, key = server.key) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

  /** Opens a fresh portal link like a browser: returns the session cookie. */
  async function openPortal(key = server.key): Promise<string> {
    const { url } = (await (await api('/v1/billing/portal', key)).json()) as { url: string };
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/billing/portal');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/billing/);
    return cookie.split(';')[0]!;
  }
  const pageOf = async (cookie: string, query = '') => {
    const res = await fetch(`${server.url}/billing/portal${query}`, { headers: { cookie } });
    return { status: res.status, html: await res.text(), headers: res.headers };
  };
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const postForm = (cookie: string, path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

  beforeAll(async () => {
    server = await startTestServer({ clock });
    const me = (await (await api('/v1/users/me')).json()) as { id: string };
    userId = me.id;
  });
  afterAll(async () => server.close());

  it('needs a key for the API endpoints', async () => {
    for (const path of ['/v1/billing/portal', '/v1/billing/subscription']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { detail: string }).detail).toBe('Invalid or expired API key');
    }
  });

  it('issues a link valid for 24 hours, storing only its hash, that every opening within them can use', async () => {
    const res = await api('/v1/billing/portal');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { url: string; expires_at: string };
    expect(body.url).toMatch(new RegExp(`^${server.url}/billing/portal/[A-Za-z0-9_-]{43}$`));
    expect(body.expires_at).toBe(new Date(clock.t + 24 * 3600 * 1000).toISOString());
    const token = body.url.split('/').pop()!;
    // Nowhere in the database: the SQLite files (WAL included), or every row on PostgreSQL.
    expect((await storedBytes(server)).includes(Buffer.from(token))).toBe(false);
    // Each opening — the same browser again, another browser, an hour before expiry — starts its own session.
    const open = async (headers: Record<string, string> = {}) => {
      const r = await fetch(body.url, { redirect: 'manual', headers });
      expect(r.status).toBe(303);
      expect(r.headers.get('location')).toBe('/billing/portal');
      return r.headers.get('set-cookie')!.split(';')[0]!;
    };
    const first = await open();
    const again = await open({ cookie: first });
    const other = await open();
    clock.t += 23 * 3600 * 1000;
    try {
      const late = await open();
      const cookies = [first, again, other, late];
      expect(new Set(cookies).size).toBe(4);
      for (const cookie of cookies) expect((await pageOf(cookie)).status).toBe(200);
    } finally {
      clock.t -= 23 * 3600 * 1000;
    }
  });

  it('answers unknown and expired links with HTML error pages', async () => {
    const bad = await fetch(`${server.url}/billing/portal/${'x'.repeat(43)}`);
    expect(bad.status).toBe(404);
    expect(bad.headers.get('content-type')).toMatch(/text\/html/);
    const { url } = (await (await api('/v1/billing/portal')).json()) as { url: string };
    clock.t += 24 * 3600 * 1000 + 1000;
    try {
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(410);
    } finally {
      clock.t -= 24 * 3600 * 1000 + 1000;
    }
  });

  it('ends the session with the link; no cookie → 401 page', async () => {
    expect((await pageOf('voxctl_billing=nope')).status).toBe(401);
    const cookie = await openPortal();
    expect((await pageOf(cookie)).status).toBe(200);
    clock.t += 25 * 3600 * 1000;
    try {
      expect((await pageOf(cookie)).status).toBe(401);
    } finally {
      clock.t -= 25 * 3600 * 1000;
    }
  });

  it('shows the plan with safe headers', async () => {
    const cookie = await openPortal();
    const { status, html, headers } = await pageOf(cookie);
    expect(status).toBe(200);
    expect(headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(headers.get('cache-control')).toBe('no-store');
    expect(html).toContain('id="current-tier">Pro<');
    expect(html).not.toMatch(/<(script|link|img)\b/); // no external assets, no scripts
  });

  it('changes the tier at once (quota and subscription), CSRF-checked', async () => {
    const cookie = await openPortal();
    const csrf = csrfOf((await pageOf(cookie)).html);
    expect((await postForm(cookie, '/billing/portal/tier', { tier: 'starter' })).status).toBe(403);
    expect((await postForm(cookie, '/billing/portal/tier', { tier: 'starter', csrf: 'x'.repeat(43) })).status).toBe(403);
    expect((await postForm('voxctl_billing=zzz', '/billing/portal/tier', { tier: 'starter', csrf })).status).toBe(401);
    const bad = await postForm(cookie, '/billing/portal/tier', { tier: 'platinum', csrf });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Choose one of the plans');
    const ok = await postForm(cookie, '/billing/portal/tier', { tier: 'starter', csrf });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/billing/portal?done=tier');
    const usage = (await (await api('/v1/users/usage')).json()) as { characters_limit: number; subscription_tier: string };
    expect(usage).toMatchObject({ characters_limit: 100_000, subscription_tier: 'starter' });
    const limitHeader = (await api('/v1/users/me')).headers.get('x-ratelimit-limit');
    expect(limitHeader).toBe('60');
    const sub = (await (await api('/v1/billing/subscription')).json()) as Record<string, unknown>;
    expect(sub).toEqual({ tier: 'starter', status: 'active', current_period_start: '2025-03-01', current_period_end: '2025-03-31', cancel_at_period_end: false });
    const after = await pageOf(cookie, '?done=tier');
    expect(after.html).toContain('Your plan was changed');
    expect((await postForm(cookie, '/billing/portal/tier', { tier: 'pro', csrf })).status).toBe(303);
  });

  it('cancels and resumes the subscription', async () => {
    const cookie = await openPortal();
    const csrf = csrfOf((await pageOf(cookie)).html);
    expect((await postForm(cookie, '/billing/portal/cancel', { csrf })).status).toBe(303);
    const sub = (await (await api('/v1/billing/subscription')).json()) as Record<string, unknown>;
    expect(sub).toMatchObject({ status: 'cancelled', cancel_at_period_end: true });
    const synth = await fetch(`${server.url}/v1/tts/synthesize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ speaker_id: 'spk_flite-slt_001', text: 'hello' }),
    });
    expect(synth.status).toBe(403);
    expect(((await synth.json()) as { detail: string }).detail).toBe('Subscription is cancelled');
    expect((await pageOf(cookie)).html).toContain('id="resume-subscription"');
    expect((await postForm(cookie, '/billing/portal/resume', { csrf })).status).toBe(303);
    expect(((await (await api('/v1/billing/subscription')).json()) as { status: string }).status).toBe('active');
  });

  it('records a card after Luhn validation, keeping only brand, last 4 and expiry', async () => {
    const cookie = await openPortal();
    const csrf = csrfOf((await pageOf(cookie)).html);
    const bad = await postForm(cookie, '/billing/portal/payment-method', { csrf, card_number: '4242 4242 4242 4241', exp_month: '12', exp_year: '2030' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Card number is invalid');
    const expired = await postForm(cookie, '/billing/portal/payment-method', { csrf, card_number: '4242424242424242', exp_month: '02', exp_year: '2025' });
    expect(await expired.text()).toContain('Card has expired');
    const ok = await postForm(cookie, '/billing/portal/payment-method', { csrf, card_number: '5555-5555-5555-4444', exp_month: '7', exp_year: '31' });
    expect(ok.status).toBe(303);
    expect((await pageOf(cookie)).html).toContain('Mastercard ending in 4444, expires 07/2031');
    const stored = await server.runtime.db.get('SELECT * FROM payment_methods WHERE user_id = ?', [userId]);
    expect(stored).toMatchObject({ brand: 'Mastercard', last4: '4444', exp_month: 7, exp_year: 2031 });
    const bytes = await storedBytes(server);
    expect(bytes.includes(Buffer.from('Mastercard'))).toBe(true); // the search does reach the stored card
    expect(bytes.includes(Buffer.from('5555555555554444'))).toBe(false);
    expect(bytes.includes(Buffer.from('5555-5555-5555-4444'))).toBe(false);
  });

  it('lists one invoice per past period with usage, priced at that period’s tier, downloadable as CSV', async () => {
    await addCharactersUsed(server.runtime.db, userId, '2025-01-01', 1234);
    await addCharactersUsed(server.runtime.db, userId, '2025-02-01', 99);
    await addCharactersUsed(server.runtime.db, userId, '2025-03-01', 5); // current period: no invoice yet
    const cookie = await openPortal();
    const { html } = await pageOf(cookie);
    expect(html).toContain('inv_202501');
    expect(html).toContain('inv_202502');
    expect(html).not.toContain('inv_202503');
    const res = await fetch(`${server.url}/billing/portal/invoices/inv_202501.csv`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="inv_202501.csv"');
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toBe('invoice_id,period_start,period_end,description,quantity,unit_price,amount,currency');
    // Before this test's tier changes (March), the bootstrap user was on pro.
    expect(lines[1]).toBe('inv_202501,2025-01-01,2025-01-31,voxctl Pro plan (monthly),1,99.00,99.00,USD');
    expect(lines[2]).toContain(',1234,');
    expect(lines.at(-1)).toBe('inv_202501,2025-01-01,2025-01-31,Total,,,99.00,USD');
    expect((await fetch(`${server.url}/billing/portal/invoices/inv_202503.csv`, { headers: { cookie } })).status).toBe(404);
    expect((await fetch(`${server.url}/billing/portal/invoices/inv_202501.csv`)).status).toBe(401);
    // Next month, March becomes an invoice too, at the tier then in force.
    clock.t = Date.parse('2025-04-02T00:00:00.000Z');
    try {
      const cookie2 = await openPortal();
      expect((await pageOf(cookie2)).html).toContain('inv_202503');
    } finally {
      clock.t = Date.parse('2025-03-15T12:00:00.000Z');
    }
  });

  it('keeps users apart and escapes what it shows', async () => {
    const other = await createUserWithKey(server.runtime.db, { email: 'eve@example.com', name: '<script>alert(1)</script>', tier: 'free', now: clock.now() });
    await addCharactersUsed(server.runtime.db, other.user.id, '2025-02-01', 7);
    const cookie = await openPortal(other.key.key);
    const { html } = await pageOf(cookie);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('id="current-tier">Free<');
    expect(html).toContain('No payment method on file.');
    // Eve's February invoice is a Free one.
    const csv = await (await fetch(`${server.url}/billing/portal/invoices/inv_202502.csv`, { headers: { cookie } })).text();
    expect(csv).toContain('voxctl Free plan (monthly),1,0.00,0.00,USD');
    expect(csv).toContain(',7,');
  });
});
