import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { closeTestDispatcher, testContext } from '../helpers/cli-context.js';
import { fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { fakeProvidersConfig } from '../helpers/evaluations.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// DESIGN §17.6 (issue 33, item 7), in-process against a real service: a corpus whose references and
// metadata carry spreadsheet formulas, terminal escape sequences, characters XML forbids and HTML, and a
// vendor whose transcript clears the screen. The CLI's CSV, tables, JUnit and Markdown carry them as data.
const ch = (code: number) => String.fromCodePoint(code);
const ESC = ch(0x1b);
const CLEAR = `${ESC}[2J`;
const CARDS = '/usr/share/pocketsphinx/test/data/cards';
/** Anything outside XML 1.0's Char production: what a strict XML reader refuses. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const NORTH = `north ${ch(1)}${CLEAR}<script>alert(1)</script>|\`x\``;
const SOUTH = `south ${ch(0x9b)}2J <img src=x onerror=alert(1)>`;
const UTTERANCES = [
  { file: '001', reference: '=HYPERLINK("http://x") queen of spades', speaker: 'spk1', accent: NORTH },
  { file: '002', reference: `+cmd|' /C calc'!A0 two of hearts`, speaker: 'spk1', accent: NORTH },
  { file: '003', reference: `${CLEAR}-1+1 ace of clubs`, speaker: 'spk2', accent: SOUTH },
  { file: '004', reference: '@SUM(1) jack of diamonds', speaker: 'spk2', accent: SOUTH },
];

let s: TestServer;
let vendor: FakeVendor;
let dir: string;
let env: Record<string, string>;
let corpusId: string;

/** Runs `voxctl ...args` in-process (piped, or on a terminal) and returns its exit code and output. */
async function voxctl(args: string[], opts: { tty?: boolean } = {}) {
  const t = testContext({ env, tty: opts.tty });
  const code = await t.run(args);
  return { code, stdout: t.stdout.text, stderr: t.stderr.text };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'voxctl-hostile-outputs-'));
  vendor = await startFakeVendor('openai');
  const configPath = fakeProvidersConfig(dir, { 'stt-b': { adapter: 'openai', model: 'whisper-1', fake: vendor } });
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  env = { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key };
  const corpus = join(dir, 'hostile');
  mkdirSync(join(corpus, 'audio'), { recursive: true });
  for (const u of UTTERANCES) copyFileSync(join(CARDS, `${u.file}.wav`), join(corpus, 'audio', `${u.file}.wav`));
  writeFileSync(
    join(corpus, 'metadata.csv'),
    stringify(
      UTTERANCES.map((u) => [`audio/${u.file}.wav`, u.reference, u.speaker, u.accent]),
      { header: true, columns: ['file_name', 'transcription', 'speaker_id', 'accent'] },
    ),
  );
  const r = await voxctl(['--json', 'corpus', 'upload', corpus, '--name', 'hostile']);
  expect(r.code, r.stderr).toBe(0);
  corpusId = JSON.parse(r.stdout).corpus_id;
}, 120_000);
afterAll(async () => {
  await closeTestDispatcher();
  await s?.close();
  await vendor?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('outputs carry data, not commands (DESIGN §17.6)', () => {
  it('an error message that carries data shows its control characters as U+FFFD', async () => {
    writeFileSync(join(dir, 'texts.txt'), 'Hello there.\n');
    const r = await voxctl(['eval', 'run', '--texts', join(dir, 'texts.txt'), '--providers', 'stt-b', '--conditions', `${CLEAR}noise`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('\uFFFD[2Jnoise');
    expect(r.stderr).not.toContain(ESC);
  });

  it('corpus utterances --csv: formula cells behind a quote, the rest as it is', async () => {
    const r = await voxctl(['corpus', 'utterances', corpusId, '--csv']);
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    const byId = new Map(rows.map((row) => [row.utterance_id, row]));
    expect(byId.get('audio/001')!.reference).toBe(`'=HYPERLINK("http://x") queen of spades`);
    expect(byId.get('audio/002')!.reference).toBe(`'+cmd|' /C calc'!A0 two of hearts`);
    expect(byId.get('audio/004')!.reference).toBe(`'@SUM(1) jack of diamonds`);
    // Not a formula: the data as it is (CSV is for programs; only tables are made safe for a terminal).
    expect(byId.get('audio/003')!.reference).toBe(`${CLEAR}-1+1 ace of clubs`);
    expect(JSON.parse(byId.get('audio/001')!.metadata!)).toEqual({ accent: NORTH });
    // Numbers stay numbers.
    expect(Number(byId.get('audio/001')!.duration_seconds)).toBeGreaterThan(0);
  });

  it('corpus utterances as a table, piped and on a terminal: control characters shown as U+FFFD', async () => {
    for (const tty of [false, true]) {
      const r = await voxctl(['corpus', 'utterances', corpusId], { tty });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('\uFFFD[2J-1+1 ace of clubs');
      expect(r.stdout).not.toContain(CLEAR);
    }
  });

  it('batch submit --download: manifest.csv writes formula texts behind a quote', async () => {
    const speaker = await fliteSpeaker(s.runtime.db);
    const items = join(dir, 'items.jsonl');
    const texts = ['=HYPERLINK("http://x") hello', '-1+1 is two', 'plain words'];
    writeFileSync(items, texts.map((text) => JSON.stringify({ text, speaker_id: speaker })).join('\n') + '\n');
    const out = join(dir, 'batch-out');
    const r = await voxctl(['batch', 'submit', items, '--download', out]);
    expect(r.code, r.stderr).toBe(0);
    const manifest = parse(readFileSync(join(out, 'manifest.csv')), { columns: true }) as Record<string, string>[];
    expect(manifest.map((m) => [m.index, m.text])).toEqual([
      ['0', `'=HYPERLINK("http://x") hello`],
      ['1', `'-1+1 is two`],
      ['2', 'plain words'],
    ]);
  }, 120_000);

  it('eval utterances, --junit and --markdown of a run and of its rerun with groups from the metadata', async () => {
    vendor.transcript = `${CLEAR}queen of spades ${ch(0x9b)}31m`;
    const run = await voxctl(['eval', 'run', '--corpus', corpusId, '--providers', 'stt-b', '--group-by', 'accent', '--watch', '--junit', join(dir, 'run.xml'), '--markdown', join(dir, 'run.md')]);
    expect(run.code, run.stderr).toBe(0);
    const id = /^(ev_\S+): 4 utterances$/m.exec(run.stderr)![1]!;

    const table = await voxctl(['eval', 'utterances', id, '--provider', 'stt-b']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('\uFFFD[2Jqueen of spades \uFFFD31m');
    expect(table.stdout).not.toContain(ESC);
    expect(table.stdout).not.toContain(ch(0x9b));
    const csv = await voxctl(['eval', 'utterances', id, '--csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parse(csv.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row.reference)).toContain(`'=HYPERLINK("http://x") queen of spades`);

    const rerun = await voxctl(['eval', 'rerun', id, '--watch', '--junit', join(dir, 'rerun.xml'), '--markdown', join(dir, 'rerun.md')]);
    expect(rerun.code, rerun.stderr).toBe(0);
    // The compare rows of each accent are test cases: their names came from the corpus metadata.
    const xml = readFileSync(join(dir, 'rerun.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toMatch(NOT_XML_CHAR);
    const suite = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => n === 'testcase' }).parse(xml).testsuites.testsuite;
    const names = suite.testcase.map((c: { name: string }) => c.name);
    expect(names).toContain('clean / north [2J<script>alert(1)</script>|`x`');
    expect(names).toContain(`clean / ${SOUTH}`);
    expect(readFileSync(join(dir, 'run.xml'), 'utf8')).not.toMatch(NOT_XML_CHAR);

    const md = readFileSync(join(dir, 'rerun.md'), 'utf8');
    expect(md).not.toMatch(/<script|<img|<\/script/);
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt;\\|\\`x\\`');
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;');
  }, 150_000);
});
