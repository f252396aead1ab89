import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { renderEvaluationReport } from '../../src/server/evaluations/report-html.js';
import { REPORT_CSP } from '../../src/server/evaluations/report-style.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { espeakSpeaker, fliteSpeaker } from '../helpers/audio-jobs.js';
import { failingVendorConfig, pollEvaluation } from '../helpers/evaluations.js';
import { fixtureReport, HOSTILE_TRANSCRIPT } from '../unit/server/evaluations/report-fixture.js';

/**
 * The evaluation report in Debian's Chromium: it must load with no console error (a CSP violation is
 * one), no request leaving its server, and no script running from user data. The page, a screen and a
 * print screenshot land in `.tmp/` for a human to look at.
 */
describe('evaluation report in Chromium', () => {
  let browser: Browser;
  const shots = join(process.cwd(), '.tmp');

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens `url` in a fresh tab, recording console errors/warnings, page errors, dialogs and every request. */
  async function open(url: string): Promise<{ tab: Page; status: number | undefined; problems: string[]; requests: string[]; close(): Promise<void> }> {
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
    const response = await tab.goto(url, { waitUntil: 'load' });
    return { tab, status: response?.status(), problems, requests, close: () => context.close() };
  }

  const outside = (requests: string[], origin: string) => requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));

  async function screenshots(tab: Page, name: string): Promise<void> {
    await tab.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    await tab.emulateMedia({ media: 'print' });
    await tab.screenshot({ path: join(shots, `${name}-print.png`), fullPage: true });
    await tab.emulateMedia({ media: 'screen' });
    expect(statSync(join(shots, `${name}.png`)).size).toBeGreaterThan(10_000);
  }

  describe('a rendered fixture with hostile user data, served with its CSP from a loopback server', () => {
    let server: Server;
    let origin: string;
    const page = renderEvaluationReport({ ...fixtureReport({ hostile: true }), generatedAt: new Date('2026-11-22T18:00:00Z') });

    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url !== '/report') return res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': REPORT_CSP }).end(page);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
    });

    it('loads cleanly, shows user data as text and draws every chart', async () => {
      const { tab, status, problems, requests, close } = await open(`${origin}/report`);
      expect(status).toBe(200);
      expect(problems).toEqual([]);
      expect(outside(requests, origin)).toEqual([]);
      expect(await tab.locator('script').count()).toBe(0);
      expect(await tab.title()).toBe('Evaluation </title><script>alert("name")</script>');
      expect(await tab.locator('#failures').textContent()).toContain(HOSTILE_TRANSCRIPT);
      // 3 WER charts (one per condition), the heat map and the latency strip all have a size.
      const heights = await tab.locator('svg.chart').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
      expect(heights).toHaveLength(5);
      expect(heights.every((h) => h > 60)).toBe(true);
      expect(await tab.locator('#heat-map svg g rect').count()).toBe(6);
      // The stylesheet applied (it would not under a wrong CSP hash): sections are white cards.
      const background = await tab
        .locator('section')
        .first()
        .evaluate((e) => (globalThis as unknown as { getComputedStyle(x: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor);
      expect(background).toBe('rgb(255, 255, 255)');
      writeFileSync(join(shots, 'evaluation-report.html'), page);
      await screenshots(tab, 'evaluation-report');
      expect(problems).toEqual([]);
      await close();
    });
  });

  describe('a real evaluation through the signed report URL', () => {
    let s: TestServer;
    let vendor: Awaited<ReturnType<typeof failingVendorConfig>>;
    beforeAll(async () => {
      vendor = await failingVendorConfig();
      s = await startTestServer({ options: { configPath: vendor.configPath } });
    });
    afterAll(async () => {
      await s?.close();
      await vendor?.close();
    });

    it('serves the report of a finished local-sphinx run (Flite and eSpeak voices) with its CSP', async () => {
      const reference = 'Fish & <b>chips</b> cost five pounds.';
      const created = await call(s, 'POST', '/v1/evaluations', {
        key: s.key,
        json: {
          name: 'browser <i>check</i>',
          texts: [reference],
          speakers: { ids: [await fliteSpeaker(s.runtime.db), await espeakSpeaker(s.runtime.db)], group_by: 'engine' },
          // stt-b is bound to a vendor that fails every request at once: a realistic second row.
          providers: ['local-sphinx', 'stt-b'],
          conditions: ['clean', 'telephone'],
        },
      });
      expect(created.status, created.text).toBe(201);
      const ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 240_000, intervalMs: 500 });
      expect(ev.status).toBe('completed');

      const { tab, status, problems, requests, close } = await open(ev.report_url);
      expect(status).toBe(200);
      expect(problems).toEqual([]);
      expect(outside(requests, s.url)).toEqual([]);
      // Markup in the name and the text stays text: no element is made of it.
      expect(await tab.locator('script, i').count()).toBe(0);
      expect(await tab.locator('b', { hasText: 'chips' }).count()).toBe(0);
      expect(await tab.title()).toBe('Evaluation browser <i>check</i>');
      expect(await tab.locator('#status').textContent()).toBe('completed');
      expect(await tab.locator('#setup-speakers').textContent()).toMatch(/^2 in 2 engine group\(s\): espeak \(1\), flite \(1\)$/);
      // local-sphinx has a value in both cells; stt-b transcribed nothing, so its cells say n/a.
      const cells = await tab.locator('#heat-map svg text.cell').allTextContents();
      expect(cells.filter((c) => /%$/.test(c))).toHaveLength(2);
      expect(cells.filter((c) => c === 'n/a')).toHaveLength(2);
      expect(await tab.locator('#latency svg circle').count()).toBeGreaterThanOrEqual(4);
      await screenshots(tab, 'evaluation-report-live');
      await close();

      const csp = (await fetch(ev.report_url)).headers.get('content-security-policy');
      expect(csp).toBe(REPORT_CSP);
    }, 300_000);
  });
});
