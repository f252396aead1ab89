import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addCharactersUsed } from '../../src/server/features/limits/usage-repository.js';
import { billingPeriod } from '../../src/server/features/limits/quota.js';

/** The billing portal driven by a real headless Chromium (Debian's /usr/bin/chromium). */
describe('billing portal in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.key}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    server = await startTestServer();
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    // A past period with usage, so there is an invoice to download.
    const me = await api<{ id: string }>('/v1/users/me');
    const now = new Date();
    const lastMonth = billingPeriod(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15))).start;
    await addCharactersUsed(server.runtime.db, me.id, lastMonth, 4321);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('changes the tier, records a card and downloads an invoice', async () => {
    const { url } = await api<{ url: string }>('/v1/billing/portal');
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    // Each opening exchanges the token for a cookie session; the token leaves the address bar.
    expect(new URL(page.url()).pathname).toBe('/billing/portal');
    expect(await page.textContent('#current-tier')).toBe('Pro');

    await page.check('#tier-enterprise');
    await Promise.all([page.waitForURL(/done=tier/), page.click('#change-tier')]);
    expect(await page.textContent('#notice')).toContain('Your plan was changed');
    expect(await page.textContent('#current-tier')).toBe('Enterprise');
    const usage = await api<{ characters_limit: number; subscription_tier: string }>('/v1/users/usage');
    expect(usage).toMatchObject({ characters_limit: 10_000_000, subscription_tier: 'enterprise' });

    // A mistyped number is refused on the page, and nothing is recorded.
    await page.fill('#card-number', '4242 4242 4242 4243');
    await page.fill('#exp-month', '12');
    await page.fill('#exp-year', String(new Date().getUTCFullYear() + 3));
    await page.click('#save-card');
    await page.waitForSelector('#error');
    expect(await page.textContent('#error')).toContain('Card number is invalid');
    expect(await page.textContent('#payment-method')).toBe('No payment method on file.');
    await page.fill('#card-number', '4242 4242 4242 4242');
    await page.fill('#exp-month', '12');
    await page.fill('#exp-year', String(new Date().getUTCFullYear() + 3));
    await Promise.all([page.waitForURL(/done=card/), page.click('#save-card')]);
    expect(await page.textContent('#payment-method')).toContain('Visa ending in 4242');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#invoices a')]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(download.suggestedFilename()).toMatch(/^inv_\d{6}\.csv$/);
    expect(csv.split('\r\n')[0]).toBe('invoice_id,period_start,period_end,description,quantity,unit_price,amount,currency');
    expect(csv).toContain(',4321,');

    mkdirSync('.tmp', { recursive: true });
    await page.screenshot({ path: '.tmp/billing-portal.png', fullPage: true });

    // Reloading works (cookie session); the link opens again, in this browser and in another one
    // (DESIGN §4.16: valid 24 h), each opening with a session of its own.
    expect((await page.reload())?.status()).toBe(200);
    const again = await context.newPage();
    expect((await again.goto(url))?.status()).toBe(200);
    expect(await again.textContent('#current-tier')).toBe('Enterprise');
    const stranger = await browser.newContext();
    const other = await stranger.newPage();
    expect((await other.goto(url))?.status()).toBe(200);
    expect(new URL(other.url()).pathname).toBe('/billing/portal');
    expect(await other.textContent('#current-tier')).toBe('Enterprise');
    const cookieOf = async (c: typeof context) => (await c.cookies()).find((k) => k.name === 'voxctl_billing')?.value;
    expect(await cookieOf(stranger)).not.toBe(await cookieOf(context));
    await stranger.close();
    await context.close();
  });
});
