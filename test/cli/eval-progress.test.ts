import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../src/client/errors.js';
import { STATUSES } from '../../src/cli/eval/eval.js';
import { parseTextLines } from '../../src/cli/eval/request.js';
import { EvaluationProgress, FINAL_STATES, duration, finishRun, pollInterval, watchEvaluation } from '../../src/cli/eval/watch.js';
import { summaryGateFailures } from '../../src/shared/evaluation-gates.js';
import { EvaluationStatus, FINAL_EVALUATION_STATUSES } from '../../src/shared/schemas/evaluations.js';
import type { CliError } from '../../src/cli/core/errors.js';
import { Output } from '../../src/cli/core/output.js';
import type { EvaluationDetail, EvaluationSummaryRow } from '../../src/shared/schemas/evaluations.js';
import { Capture, closeTestDispatcher, testContext } from '../helpers/cli-context.js';
import { fliteSpeaker } from '../helpers/audio-jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { failingVendorConfig } from '../helpers/evaluations.js';

const ESC = String.fromCharCode(27);

function evaluation(over: Partial<EvaluationDetail> = {}): EvaluationDetail {
  return {
    evaluation_id: 'ev_x',
    name: null,
    status: 'processing',
    progress: 0,
    total_utterances: 200,
    completed_utterances: 0,
    created_at: '2026-11-22T18:00:00.000Z',
    started_at: null,
    completed_at: null,
    providers: ['local-sphinx'],
    provider_labels: { 'local-sphinx': 'local-sphinx · en-us' },
    conditions: ['clean'],
    group_by: 'accent',
    normalizer: { name: 'basic', version: 1 },
    seed: 0,
    report_url: 'http://127.0.0.1/r',
    setup: { voxctl_version: '0.1.0', normalizer: { name: 'basic', version: 1 }, providers: { 'local-sphinx': { adapter: 'local-sphinx', model: null, language: null } }, conditions: ['clean'], seed: 0 },
    baseline_id: null,
    ...over,
  };
}

const row = (over: Partial<EvaluationSummaryRow>): EvaluationSummaryRow => ({
  provider: 'local-sphinx',
  condition: 'clean',
  group: 'all',
  utterances: 4,
  speakers: 2,
  reference_words: 20,
  substitutions: 1,
  deletions: 0,
  insertions: 0,
  wer: 0.05,
  wer_ci95: [0, 0.1],
  cer: 0.02,
  latency_ms: { p50: 10, p95: 20 },
  attempted: 4,
  failed_requests: 0,
  audio_seconds: null,
  cost_usd: null,
  rtfx: null,
  ...over,
});

const output = (tty: boolean, quiet = false) => {
  const stderr = new Capture(tty);
  return { stderr, out: new Output({ stdout: new Capture(tty), stderr, json: false, quiet, verbose: false, noColor: true }) };
};

describe('eval progress', () => {
  it('draws one bar in place on a terminal, with done/total, the rate since the watch began and the ETA', () => {
    const { stderr, out } = output(true);
    const p = new EvaluationProgress(out);
    p.update(evaluation({ progress: 10, completed_utterances: 20 }), 0);
    p.update(evaluation({ progress: 30, completed_utterances: 60 }), 20_000);
    p.update(evaluation({ status: 'completed', progress: 100, completed_utterances: 200 }), 60_000);
    const lines = stderr.text.split('\n').filter(Boolean);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(`${ESC}[2Kev_x  ${'█'.repeat(2)}${'░'.repeat(22)}  10%  processing 20/200`);
    // 40 utterances in 20 s = 2.0/s; 140 left → 70 s.
    expect(lines[1]).toBe(`${ESC}[1A${ESC}[2Kev_x  ${'█'.repeat(7)}${'░'.repeat(17)}  30%  processing 60/200  2.0 utt/s  ETA 1m 10s`);
    expect(lines[2]).toMatch(/100% {2}completed\s+200\/200 {2}3\.0 utt\/s$/);
  });

  it('prints a plain line every 10% or 10 s when piped (a dozen lines for 216 utterances, not one per poll), and nothing with --quiet', () => {
    const { stderr, out } = output(false);
    const p = new EvaluationProgress(out);
    // 216 utterances, 4 done per one-second poll: the old rule printed a line per change (54 lines).
    for (let t = 0; t < 54; t++) p.update(evaluation({ total_utterances: 216, completed_utterances: 4 * t, progress: Math.floor((400 * t) / 216) }), t * 1000);
    p.update(evaluation({ status: 'partial', total_utterances: 216, progress: 100, completed_utterances: 216 }), 54_000);
    const lines = stderr.text.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(11);
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines[0]).toBe('ev_x: processing 0% (0/216)');
    // Each later line has the rate since the watch began and the ETA at that rate.
    expect(lines[1]).toBe('ev_x: processing 11% (24/216, 4.0 utt/s, ETA 48s)');
    expect(lines.at(-1)).toBe('ev_x: partial 100% (216/216)');
    // A slow run still says it is alive every 10 s.
    const slow = output(false);
    const q = new EvaluationProgress(slow.out);
    for (let t = 0; t <= 30; t++) q.update(evaluation({ completed_utterances: 1, progress: 0 }), t * 1000);
    expect(slow.stderr.text.trim().split('\n')).toHaveLength(4);
    const quiet = output(true, true);
    new EvaluationProgress(quiet.out).update(evaluation(), 0);
    expect(quiet.stderr.text).toBe('');
  });

  it('under --json reports progress as JSON lines at the same cadence', () => {
    const stderr = new Capture(true);
    const out = new Output({ stdout: new Capture(false), stderr, json: true, quiet: false, verbose: false, noColor: true });
    const p = new EvaluationProgress(out);
    for (let t = 0; t <= 10; t++) p.update(evaluation({ completed_utterances: 20 * t, progress: 10 * t, status: t === 10 ? 'completed' : 'processing' }), t * 1000);
    const events = stderr.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events).toHaveLength(11);
    expect(events[0]).toEqual({ event: 'progress', evaluation_id: 'ev_x', status: 'processing', progress: 0, done: 0, total: 200, rate_per_second: 0, eta_seconds: null });
    expect(events[5]).toMatchObject({ progress: 50, done: 100, rate_per_second: 20, eta_seconds: 5 });
    expect(events[10]).toMatchObject({ status: 'completed', eta_seconds: null });
  });

  it('formats durations and polls quickly first, then every 5 s', () => {
    expect([duration(5), duration(75), duration(3725)]).toEqual(['5s', '1m 15s', '1h 02m']);
    expect([pollInterval(0), pollInterval(30_000), pollInterval(120_000)]).toEqual([1_000, 2_000, 5_000]);
  });

  it('waits out 429 answers with a message, then gives up after five in a row', async () => {
    const { stderr, out } = output(false);
    const slept: number[] = [];
    const answers: (EvaluationDetail | ApiRequestError)[] = [
      new ApiRequestError({ status: 429, detail: 'Rate limit exceeded', retryAfter: 3 }),
      evaluation(),
      evaluation({ status: 'completed', progress: 100, completed_utterances: 200 }),
    ];
    const fetch = async () => {
      const a = answers.shift()!;
      if (a instanceof Error) throw a;
      return a;
    };
    const ev = await watchEvaluation(fetch, { out, progress: new EvaluationProgress(out), now: () => 0, sleep: async (ms) => void slept.push(ms) });
    expect(ev.status).toBe('completed');
    expect(slept).toEqual([3000, 1000]);
    expect(stderr.text).toContain('Rate limited while watching; retrying in 3 s');

    const always = () => Promise.reject(new ApiRequestError({ status: 429, detail: 'Rate limit exceeded' }));
    const err = await watchEvaluation(always, { out, progress: new EvaluationProgress(out), now: () => 0, sleep: async () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiRequestError);
  });
});

describe('eval gate and texts', () => {
  it('fails rows of group all above the gate, and rows where nothing was scored', () => {
    const summary = [
      row({ wer: 0.3 }),
      row({ condition: 'telephone', wer: 0.31 }),
      row({ group: 'Scottish', wer: 0.9 }),
      row({ provider: 'stt-b', wer: null, wer_ci95: null }),
    ];
    expect(summaryGateFailures(summary, { maxWer: 0.3 }).map((r) => `${r.provider}/${r.condition}`)).toEqual(['local-sphinx/telephone', 'stt-b/clean']);
  });

  it('exits 7 for the gate before 6 for an unsuccessful run', () => {
    const code = (ev: EvaluationDetail, max?: number) => {
      try {
        finishRun(ev, { maxWer: max });
        return 0;
      } catch (e) {
        return (e as CliError).exitCode;
      }
    };
    const completed = evaluation({ status: 'completed', summary: [row({ wer: 0.4 })] });
    expect(code(completed)).toBe(0);
    expect(code(completed, 0.5)).toBe(0);
    expect(code(completed, 0.3)).toBe(7);
    expect(code({ ...completed, status: 'partial' }, 0.5)).toBe(6);
    expect(code({ ...completed, status: 'partial' }, 0.3)).toBe(7);
    expect(code(evaluation({ status: 'failed' }), 0.3)).toBe(6);
    expect(code(evaluation({ status: 'cancelled' }))).toBe(6);
  });

  it('a half-failing provider cannot pass a WER gate on the half it answered (DESIGN §15.2)', () => {
    const ev = evaluation({ status: 'completed', summary: [row({ wer: 0.05, attempted: 8, failed_requests: 4 })] });
    const failed = (gates: Parameters<typeof finishRun>[1]) => {
      try {
        finishRun(ev, gates);
        return undefined;
      } catch (e) {
        return e as CliError;
      }
    };
    const e = failed({ maxWer: 0.3 })!;
    expect(e.exitCode).toBe(7);
    expect(e.message).toBe('1 provider/condition row(s) have failed requests beyond --max-failure-rate 0:\n  local-sphinx under clean: 4 of 8 requests failed');
    expect(failed({ maxWer: 0.3, maxFailureRate: 0.5 })).toBeUndefined();
    // --max-failure-rate is a gate of its own.
    expect(failed({ maxFailureRate: 0.25 })?.exitCode).toBe(7);
    expect(failed({})).toBeUndefined();
  });

  it('knows the same states as the schema (copied to keep TypeBox out of the CLI start-up)', () => {
    expect([...STATUSES].sort()).toEqual(EvaluationStatus.anyOf.map((s) => s.const).sort());
    expect([...FINAL_STATES].sort()).toEqual([...FINAL_EVALUATION_STATUSES].sort());
  });

  it('reads one text per line, without BOM, CR or blank lines', () => {
    expect(parseTextLines('\uFEFFOne.\r\n\r\n  \nTwo  words.\n')).toEqual(['One.', 'Two  words.']);
  });
});

describe('eval run on a terminal (in-process, real service)', () => {
  let s: TestServer;
  let vendor: Awaited<ReturnType<typeof failingVendorConfig>>;
  beforeAll(async () => {
    vendor = await failingVendorConfig();
    s = await startTestServer({ options: { configPath: vendor.configPath } });
  });
  afterAll(async () => {
    await closeTestDispatcher();
    await s?.close();
    await vendor?.close();
  });

  it('draws the bar on stderr, prints the table, and gates a provider that transcribed nothing', async () => {
    const t = testContext({ env: { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key }, tty: true, stdin: 'Hello there.\nGood morning.\n' });
    // stt-b is bound to a vendor that fails every request at once, so no WER can be computed.
    const code = await t.run(['eval', 'run', '--texts', '-', '--speaker', await fliteSpeaker(s.runtime.db), '--providers', 'stt-b', '--max-wer', '0.9']);
    expect(code, t.stderr.text).toBe(7);
    const plain = t.stderr.text.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), ''); // colours off, cursor codes kept
    expect(plain).toMatch(new RegExp(`${ESC}\\[2Kev_\\S+ +█+ 100% +completed +2/2`));
    expect(plain).toContain('1 provider/condition row(s) exceed --max-wer 0.9:\n  stt-b under clean: WER n/a (nothing scored)');
    // Every request failed: said as such too (DESIGN §15.2), not only as a WER that could not be computed.
    expect(plain).toContain('1 provider/condition row(s) have failed requests beyond --max-failure-rate 0:\n  stt-b under clean: 2 of 2 requests failed');
    expect(t.stdout.text).toMatch(/stt-b.*clean.*all/);

    // `eval report --open` saves the page and hands its file URL to the opener.
    const id = /(ev_[\w-]+): 2 utterances/.exec(plain)![1]!;
    const opened: string[] = [];
    const r = testContext({ env: { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key } });
    r.ctx.openUrl = async (url) => opened.push(url) > 0;
    const file = join(r.configDir, 'report.html');
    expect(await r.run(['eval', 'report', id, '-o', file, '--open']), r.stderr.text).toBe(0);
    expect(opened).toEqual([pathToFileURL(file).href]);
    expect(readFileSync(file, 'utf8')).toContain(id);
    const none = testContext({ env: { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key } });
    expect(await none.run(['eval', 'report', id, '-o', join(none.configDir, 'r.html'), '--open'])).toBe(0);
    expect(none.stderr.text).toContain('No browser opener found; open');
  });
});
