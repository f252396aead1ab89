import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { cli, createSandbox, type Sandbox } from '../helpers/cli.js';
import { fliteSpeakers, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { FAKE_TRANSCRIPT, startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// `voxctl eval compare|rerun`, `eval run --baseline`, the regression gate and the CI outputs through the
// built CLI (run `npm run build` first) against a real service whose hosted providers are loopback fakes.
type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WORSE = 'Please call me after the meeting.';
let s: TestServer;
let sb: Sandbox;
let openai: FakeVendor;
let deepgram: FakeVendor;
let speakers: string[];
const dir = mkdtempSync(join(tmpdir(), 'voxctl-cli-compare-'));
const summaryFile = join(dir, 'step-summary.md');
const run = (args: string[], env: Record<string, string> = {}) =>
  cli(sb, args, { env: { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key, GITHUB_STEP_SUMMARY: summaryFile, ...env }, timeout: 120_000 });
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'failure'].includes(name) });
const junit = (file: string) => {
  const xml = readFileSync(join(sb.root, file), 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  return (parser.parse(xml) as { testsuites: { testsuite: Row[] } & Row }).testsuites;
};
const casesOf = (suite: Row) => suite.testcase.map((c: Row) => `${c.classname} ${c.name}${c.failure ? ' FAIL' : ''}`);

beforeAll(async () => {
  openai = await startFakeVendor('openai');
  deepgram = await startFakeVendor('deepgram');
  const configPath = join(dir, 'voxctl.config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      stt: {
        providers: {
          'stt-b': { adapter: 'openai', model: 'whisper-1', base_url: openai.url, api_key_env: 'VOXCTL_CLI_CMP_OPENAI', price_per_minute_usd: 0.006 },
          'stt-c': { adapter: 'deepgram', model: 'nova-3', base_url: deepgram.url, api_key_env: 'VOXCTL_CLI_CMP_DEEPGRAM' },
        },
      },
    }),
  );
  process.env.VOXCTL_CLI_CMP_OPENAI = openai.key;
  process.env.VOXCTL_CLI_CMP_DEEPGRAM = deepgram.key;
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  // 5 female and 5 male voices: every row has the 5 speakers a verdict needs (DESIGN §15.1).
  speakers = [...(await fliteSpeakers(s.runtime.db, 'slt', 5)), ...(await fliteSpeakers(s.runtime.db, 'rms', 5))];
  sb = createSandbox();
  writeFileSync(join(sb.root, 'prompts.txt'), `${FAKE_TRANSCRIPT}\nTurn left at the second traffic light.\n`);
});
afterAll(async () => {
  await s?.close();
  await Promise.all([openai?.close(), deepgram?.close()]);
  sb?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('voxctl eval over time and in CI', () => {
  let base: string;
  let worse: string;

  it('eval run --watch --junit --markdown: a test case per provider (group all), the job summary appended, earlier content kept', async () => {
    writeFileSync(summaryFile, '## Build\n\nearlier step output\n');
    const r = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', ...speakers, '--group-by', 'gender', '--providers', 'stt-b,stt-c', '--watch', '--junit', 'base.xml', '--markdown', 'base.md']);
    expect(r.exitCode, r.stderr).toBe(0);
    base = /^(ev_\S+): 40 utterances$/m.exec(r.stderr)![1]!;
    const suites = junit('base.xml');
    expect(suites).toMatchObject({ tests: '2', failures: '0', errors: '0', skipped: '0' });
    expect(suites.testsuite).toHaveLength(1);
    expect(suites.testsuite[0]!.name).toBe(`voxctl eval ${base}`);
    expect(casesOf(suites.testsuite[0]!)).toEqual(['stt-b clean / all', 'stt-c clean / all']);
    for (const c of suites.testsuite[0]!.testcase) expect(Number(c.time)).toBeGreaterThanOrEqual(0);
    const md = readFileSync(join(sb.root, 'base.md'), 'utf8');
    expect(md).toContain(`### voxctl eval ${base}`);
    expect(md).toMatch(/\| {2}\| stt-b \| clean \| 0\.\d{4} \|/);
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary.startsWith('## Build\n\nearlier step output\n')).toBe(true);
    expect(summary.slice('## Build\n\nearlier step output\n'.length)).toBe(`\n${md}`);
  }, 150_000);

  it('eval rerun --watch on an unchanged vendor: no_change, the gate passes (exit 0)', async () => {
    const r = await run(['eval', 'rerun', base, '--watch', '--max-regression', '0', '--junit', 'same.xml']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('no_change');
    expect(r.stdout).not.toContain('regressed');
    const suite = junit('same.xml').testsuite[0]!;
    expect(suite.failures).toBe('0');
    // Summary rows of group `all` merged with the comparison's, plus a case per group value.
    expect(casesOf(suite)).toEqual(['stt-b clean / all', 'stt-c clean / all', 'stt-b clean / Female', 'stt-b clean / Male', 'stt-c clean / Female', 'stt-c clean / Male']);
  }, 150_000);

  it('eval rerun --watch after the vendor got worse: exit 7, the regressed rows on stderr and as JUnit failures', async () => {
    openai.transcript = WORSE;
    let r;
    try {
      r = await run(['eval', 'rerun', base, '--watch', '--max-regression', '0', '--junit', 'worse.xml', '--markdown', 'worse.md']);
    } finally {
      openai.transcript = FAKE_TRANSCRIPT;
    }
    expect(r.exitCode, r.stderr).toBe(7);
    worse = /^(ev_\S+): rerun of/m.exec(r.stderr)![1]!;
    expect(r.stderr).toContain(`1 provider/condition row(s) regressed beyond --max-regression 0 against ${base}`);
    expect(r.stderr).toMatch(/ {2}stt-b under clean: WER 0\.\d{4} → 0\.\d{4} \(\+0\.\d{4}, 95% CI 0\.\d{4}–0\.\d{4}, P\(worse\) 1\.000\)/);
    expect(r.stderr).not.toContain('stt-c under');
    const suite = junit('worse.xml').testsuite[0]!;
    expect(suite).toMatchObject({ name: `voxctl eval ${worse}`, failures: '1' });
    const failed = suite.testcase.find((c: Row) => c.failure);
    expect(failed).toMatchObject({ classname: 'stt-b', name: 'clean / all' });
    expect(failed.failure[0].type).toBe('max-regression');
    expect(readFileSync(join(sb.root, 'worse.md'), 'utf8')).toMatch(/\| ❌ \| stt-b \| clean \| all \|.*\| regressed \|/);
  }, 150_000);

  it('eval compare: table, --json, --csv; the gate only with --max-regression, never on an improvement', async () => {
    const table = await run(['eval', 'compare', base, worse]);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toContain('regressed');
    expect(table.stdout).toContain('changed_setup');
    const json = await run(['eval', 'compare', base, worse, '--json']);
    const body = JSON.parse(json.stdout);
    expect(body).toMatchObject({ evaluation_id: worse, baseline_id: base, matched_utterances: 40, changed_setup: [] });
    expect(body.rows.find((x: Row) => x.provider === 'stt-b' && x.group === 'all').verdict).toBe('regressed');
    const csv = await run(['eval', 'compare', base, worse, '--csv']);
    expect(csv.stdout.split('\n')[0]).toBe('provider,condition,group,utterances,speakers,wer_baseline,wer,difference,ci95_low,ci95_high,p_worse,verdict');
    const diff = body.rows.find((x: Row) => x.provider === 'stt-b' && x.group === 'all').difference as number;
    // A tolerance above the difference passes; an improvement never fails.
    expect((await run(['eval', 'compare', base, worse, '--max-regression', String(diff + 0.01)])).exitCode).toBe(0);
    const gated = await run(['eval', 'compare', base, worse, '--max-regression', '0', '--junit', 'cmp.xml']);
    expect(gated.exitCode).toBe(7);
    expect(gated.stderr).toContain('stt-b under clean');
    expect(junit('cmp.xml').testsuite[0]!.failures).toBe('1');
    const improved = await run(['eval', 'compare', worse, base, '--max-regression', '0']);
    expect(improved.exitCode, improved.stderr).toBe(0);
    expect(improved.stdout).toContain('improved');
  }, 60_000);

  it('eval run --baseline: created linked to the baseline, compared when done, gated', async () => {
    openai.transcript = WORSE;
    let r;
    try {
      r = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', ...speakers, '--group-by', 'gender', '--providers', 'stt-b,stt-c', '--baseline', base, '--max-regression', '0']);
    } finally {
      openai.transcript = FAKE_TRANSCRIPT;
    }
    expect(r.exitCode, r.stderr).toBe(7);
    const id = /^(ev_\S+): 40 utterances$/m.exec(r.stderr)![1]!;
    const shown = JSON.parse((await run(['eval', 'show', id, '--json'])).stdout);
    expect(shown.baseline_id).toBe(base);
    expect(r.stdout).toContain('regressed');
  }, 150_000);

  it('a regression three speakers cannot rule out fails the gate as inconclusive, ⚠️ in the job summary (DESIGN §15.1)', async () => {
    const few = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', ...speakers.slice(3, 6), '--providers', 'stt-b', '--watch']);
    expect(few.exitCode, few.stderr).toBe(0);
    const baseline = /^(ev_\S+): 6 utterances$/m.exec(few.stderr)![1]!;
    openai.transcript = WORSE;
    let r;
    try {
      r = await run(['eval', 'rerun', baseline, '--watch', '--max-regression', '0', '--junit', 'few.xml', '--markdown', 'few.md']);
    } finally {
      openai.transcript = FAKE_TRANSCRIPT;
    }
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toContain('1 provider/condition row(s) cannot be ruled out as regressions beyond --max-regression 0 (fewer than 5 speakers):');
    expect(r.stderr).toMatch(/ {2}stt-b under clean: WER 0\.\d{4} → 0\.\d{4} \(\+0\.\d{4}\) cannot be ruled out as a regression: only 3 speakers/);
    expect(r.stdout).toContain('inconclusive');
    const failed = junit('few.xml').testsuite[0]!.testcase.find((c: Row) => c.failure);
    expect(failed.failure[0].type).toBe('inconclusive');
    expect(readFileSync(join(sb.root, 'few.md'), 'utf8')).toMatch(/\| ⚠️ \| stt-b \| clean \| all \|.*\| inconclusive \|/);
  }, 150_000);

  it('eval show --junit; usage and conflict errors', async () => {
    const r = await run(['eval', 'show', base, '--junit', 'show.xml']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(casesOf(junit('show.xml').testsuite[0]!)).toEqual(['stt-b clean / all', 'stt-c clean / all']);
    const bad = await run(['eval', 'compare', base, worse, '--max-regression', 'lots']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--max-regression must be a number ≥ 0 (0.02 = two WER points; 0 = any regression), got 'lots'");
    const missing = await run(['eval', 'compare', base, 'ev_missing']);
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toContain('Evaluation not found');
    const help = await run(['eval', '--help']);
    expect(help.stdout).toContain('--max-regression');
  });
});
