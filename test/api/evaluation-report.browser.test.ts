import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPORT_CSP, renderEvaluationReport } from '../../src/server/evaluations/report-html.js';
import { fixtureReport, HOSTILE_TRANSCRIPT } from '../unit/evaluations/report-fixture.js';

/**
 * The evaluation report in Debian's Chromium: served with its CSP from a loopback server, it must load
 * with no console error (a CSP violation is one), no request leaving that server, and no script running
 * from user data; a screen and a print screenshot land in `.tmp/` for a human to look at.
 */
describe('evaluation report in Chromium', () => {
  let server: Server;
  let origin: string;
  let browser: Browser;
  const page = renderEvaluationReport({ ...fixtureReport({ hostile: true }), generatedAt: new Date('2026-11-22T18:00:00Z') });

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url !== '/report') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': REPORT_CSP }).end(page);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('loads with no console error, no outside request and no script, and draws its charts', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const tab = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    tab.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    tab.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    tab.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    tab.on('request', (r) => requests.push(r.url()));

    const response = await tab.goto(`${origin}/report`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(problems).toEqual([]);
    expect(requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'))).toEqual([]);
    expect(await tab.locator('script').count()).toBe(0);

    // User data shows as text.
    expect(await tab.title()).toBe('Evaluation </title><script>alert("name")</script>');
    expect(await tab.locator('#failures').textContent()).toContain(HOSTILE_TRANSCRIPT);
    // Charts are drawn: 3 WER charts and the latency strip have a size; the heat map has a cell per provider × condition.
    const charts = await tab.locator('svg.chart').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
    expect(charts).toHaveLength(5);
    expect(charts.every((h) => h > 60)).toBe(true);
    expect(await tab.locator('#heat-map svg g rect').count()).toBe(6);
    // The stylesheet applied (it would not under a wrong CSP hash): sections are white cards.
    expect(await tab.locator('section').first().evaluate((e) => (globalThis as unknown as { getComputedStyle(x: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor)).toBe('rgb(255, 255, 255)');

    const dir = join(process.cwd(), '.tmp');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'evaluation-report.html'), page);
    const screen = join(dir, 'evaluation-report.png');
    await tab.screenshot({ path: screen, fullPage: true });
    await tab.emulateMedia({ media: 'print' });
    const print = join(dir, 'evaluation-report-print.png');
    await tab.screenshot({ path: print, fullPage: true });
    expect(statSync(screen).size).toBeGreaterThan(10_000);
    expect(problems).toEqual([]);
    await context.close();
  });
});
