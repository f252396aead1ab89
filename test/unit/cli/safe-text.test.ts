import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { markdownText, terminalText, xmlText } from '../../../src/cli/core/safe-text.js';
import { ciCases, junitXml, markdownSummary } from '../../../src/cli/eval/ci-outputs.js';
import { Output, styled } from '../../../src/cli/core/output.js';
import type { EvaluationCompare, EvaluationCompareRow } from '../../../src/shared/schemas/evaluations.js';
import { Capture } from '../../helpers/cli-context.js';

// DESIGN §17.6: outputs carry data, not commands. Control characters are built from their code points
// (lint forbids them in literals).
const ch = (code: number) => String.fromCodePoint(code);
const ESC = ch(0x1b);
const CSI = ch(0x9b);
const CLEAR = `${ESC}[2J`;
const LONE_HIGH = String.fromCharCode(0xd800);
const LONE_LOW = String.fromCharCode(0xdc00);
/** Anything outside XML 1.0's Char production: what a strict XML reader (libxml2, expat, Java's) refuses. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

describe('terminalText', () => {
  it('shows C0 (but tab and newline), DEL, C1 and ESC as U+FFFD, and nothing else', () => {
    expect(terminalText(`${CLEAR}hello`)).toBe('\uFFFD[2Jhello');
    expect(terminalText(`${CSI}2J`)).toBe('\uFFFD2J');
    expect(terminalText(`a${ch(0)}b${ch(7)}c${ch(8)}d\re${ch(0x7f)}f${ch(0x80)}g${ch(0x9f)}`)).toBe('a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg\uFFFD');
    // Tab, newline and every printable character stay.
    const text = 'a\tb\nc — é ß 漢字 😀 \u00a0 \u200b <script>';
    expect(terminalText(text)).toBe(text);
  });
});

describe('xmlText', () => {
  it('drops what XML 1.0 forbids and keeps the rest', () => {
    expect(xmlText(`a${ch(1)}b${ESC}[2Jc${ch(0xfffe)}d${ch(0xffff)}e${LONE_HIGH}f${LONE_LOW}g`)).toBe('ab[2Jcdefg');
    const allowed = `tab\there\nline\r<&>"' ${CSI} ${ch(0x7f)} 😀 ${ch(0xfffd)}`;
    expect(xmlText(allowed)).toBe(allowed);
  });
});

describe('markdownText', () => {
  it('escapes <, >, pipes, backticks and backslashes, and flattens line breaks', () => {
    expect(markdownText('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(markdownText('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(markdownText('a|b `code` c\\|d')).toBe('a\\|b \\`code\\` c\\\\\\|d');
    expect(markdownText('one\r\ntwo\nthree\rfour')).toBe('one two three four');
  });
});

const compareRow = (over: Partial<EvaluationCompareRow>): EvaluationCompareRow => ({
  provider: 'stt-b',
  condition: 'clean',
  group: 'all',
  utterances: 8,
  wer_baseline: 0.05,
  wer: 0.15,
  difference: 0.1,
  ci95: [0.05, 0.15],
  p_worse: 1,
  speakers: 8,
  verdict: 'regressed',
  attempted: 8,
  failed_requests: 0,
  ...over,
});

const HOSTILE_GROUP = `accent ${ch(1)}${CLEAR}${ch(0xfffe)}${LONE_HIGH}x`;

describe('JUnit XML of hostile group values (corpus metadata)', () => {
  it('is well-formed XML 1.0: every forbidden character dropped from attributes and text', () => {
    const compare: EvaluationCompare = {
      evaluation_id: 'ev_new',
      baseline_id: 'ev_old',
      matched_utterances: 16,
      changed_setup: [],
      rows: [compareRow({}), compareRow({ group: HOSTILE_GROUP, difference: 0.3 })],
    };
    const cases = ciCases({ compare, gates: { maxRegression: 0 } });
    // A failure message carrying the same characters (a gate message naming a hostile value).
    cases.push({ provider: `stt${ESC}`, condition: 'clean', group: 'all', timeSeconds: 1, failures: [{ type: 'max-wer', message: `bad ${ch(1)}${LONE_LOW}value` }] });
    const xml = junitXml({ evaluationId: 'ev_new', cases, timestamp: new Date('2026-11-24T03:00:00Z') });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toMatch(NOT_XML_CHAR);
    const suite = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testcase', 'failure'].includes(n) }).parse(xml).testsuites.testsuite;
    const names = suite.testcase.map((c: { name: string }) => c.name);
    expect(names).toContain('clean / accent [2Jx');
    const hostile = suite.testcase.find((c: { classname: string }) => c.classname === 'stt');
    expect(hostile.failure[0]).toMatchObject({ message: 'bad value', '#text': 'bad value' });
  });
});

describe('Markdown summary of hostile values', () => {
  it('carries no HTML tag, no extra column and no code span', () => {
    const compare: EvaluationCompare = {
      evaluation_id: 'ev_new',
      baseline_id: 'ev_old',
      matched_utterances: 16,
      changed_setup: ['group <img src=x onerror=alert(1)>'],
      rows: [compareRow({ group: '<script>alert(1)</script>' }), compareRow({ group: 'a|b`c`' })],
    };
    const md = markdownSummary({ compare, gates: {} });
    expect(md).not.toMatch(/<script|<img|<\/script/);
    expect(md).toContain('| &lt;script&gt;alert(1)&lt;/script&gt; |');
    expect(md).toContain('- group &lt;img src=x onerror=alert(1)&gt;');
    expect(md).toContain('| a\\|b\\`c\\` |');
    // Every row of the table still has the header's 12 columns (13 cells between unescaped pipes).
    const rows = md.split('\n').filter((l) => l.startsWith('| '));
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length).toBe(14);
  });
});

const output = (tty: boolean) => {
  const stdout = new Capture(tty);
  return { stdout, out: new Output({ stdout, stderr: new Capture(tty), json: false, quiet: false, verbose: false, noColor: false }) };
};
const rows = [{ id: 'u1', text: `${CLEAR}wiped ${CSI}31m`, n: -5 }];
const columns = [
  { header: 'id', get: (r: (typeof rows)[number]) => r.id },
  { header: 'text', get: (r: (typeof rows)[number]) => r.text },
  { header: 'n', get: (r: (typeof rows)[number]) => r.n },
];

describe('Output: tables and field lists show control characters as U+FFFD; CSV carries the data', () => {
  it('a piped table and a terminal table', async () => {
    for (const tty of [false, true]) {
      const { stdout, out } = output(tty);
      await out.table(rows, columns);
      expect(stdout.text).toContain('\uFFFD[2Jwiped \uFFFD31m');
      expect(stdout.text).not.toContain(CLEAR);
      expect(stdout.text).not.toContain(CSI);
    }
  });

  it('a terminal table flattens line breaks but shows a lone CR, VT or FF as it does piped', async () => {
    const cr = [{ id: 'u2', text: 'x\ry one\r\ntwo\n\nthree\vfour\ffive', n: 1 }];
    for (const tty of [false, true]) {
      const { stdout, out } = output(tty);
      await out.table(cr, columns);
      expect(stdout.text).toContain('x\uFFFDy');
      expect(stdout.text).toContain('three\uFFFDfour\uFFFDfive');
      if (tty) expect(stdout.text).toContain('one two three');
    }
  });

  it('a field list, while the CLI’s own colours stay colours', () => {
    const { stdout, out } = output(true);
    out.fields([
      ['reference', `${CLEAR}x`],
      ['status', styled(out.color.green('ok'))],
    ]);
    expect(stdout.text).toMatch(/reference.* {2}\uFFFD\[2Jx\n/);
    expect(stdout.text).toContain(`${ESC}[32mok${ESC}[39m`);
  });

  it('CSV: formula text behind a quote, numbers and other data as they are (escape sequences too)', async () => {
    const { stdout, out } = output(false);
    await out.csv(
      [
        { id: '=HYPERLINK("http://x")', text: `+cmd|' /C calc'!A0`, n: -5 },
        { id: '@SUM(1)', text: '-1+1', n: -0.25 },
        { id: '\t=1', text: '\r=1', n: 3 },
        { id: 'u4', text: CLEAR, n: 0 },
      ],
      columns,
    );
    expect(stdout.text).toBe(
      ['id,text,n', `"'=HYPERLINK(""http://x"")",'+cmd|' /C calc'!A0,-5`, `'@SUM(1),'-1+1,-0.25`, `'\t=1,"'\r=1",3`, `u4,${CLEAR},0`, ''].join('\n'),
    );
  });
});
