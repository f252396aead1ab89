import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSI, cli, createSandbox, type Sandbox } from '../helpers/cli.js';
import { call } from '../helpers/core-http.js';
import { espeakSpeaker, fliteSpeaker } from '../helpers/audio-jobs.js';
import { pollEvaluation } from '../helpers/evaluations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// `voxctl eval` through the built CLI (run `npm run build` first) against a real service on a free
// loopback port, from an empty HOME; PocketSphinx does the recognition, so runs are kept small.
let s: TestServer;
let sb: Sandbox;
const run = (args: string[], timeout = 60_000) => cli(sb, args, { env: { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key }, timeout });
const evaluationCount = async () => (await call(s, 'GET', '/v1/evaluations', { key: s.key })).body.total as number;

beforeAll(async () => {
  s = await startTestServer();
  sb = createSandbox();
  writeFileSync(join(sb.root, 'prompts.txt'), '\uFEFFThe birch canoe slid on the smooth planks.\r\n\r\n');
});
afterAll(async () => {
  await s?.close();
  sb?.cleanup();
});

describe('voxctl eval run: checks done by the CLI (exit 2, nothing created)', () => {
  it.each([
    [['--conditions', 'clean,loud'], 'Unknown condition: loud'],
    [['--conditions', 'noise:90'], 'Unknown condition: noise:90'],
    [['--providers', 'local-sphinx,stt-zz'], 'Unknown provider: stt-zz'],
    [['--dataset', 'ds_1'], 'Give exactly one of --texts FILE, --dataset ID or --corpus ID|PATH'],
    [['--filter', 'colour=red'], "--filter takes key=value with key one of gender, region, accent, age_range, native_language, engine, got 'colour=red'"],
    [['--per-group', '0'], "--per-group must be an integer in 1..20, got '0'"],
    [['--group-by', 'shoe'], "--group-by must be one of gender, region, accent, age_range, native_language, engine, got 'shoe'"],
    [['--normalizer', 'fancy'], "--normalizer must be one of basic, whisper-en, got 'fancy'"],
    [['--max-wer', 'lots'], "--max-wer must be a number ≥ 0 (0.25 = 25% WER), got 'lots'"],
  ])('%j → %s', async (extra, message) => {
    const base = ['eval', 'run', '--texts', 'prompts.txt', '--filter', 'accent=Scottish', '--group-by', 'engine', '--per-group', '1', '--providers', 'local-sphinx'];
    const r = await run([...base, ...extra]);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });

  it('asks for a speaker choice, a complete filter, and an existing texts file', async () => {
    const cases: [string[], string][] = [
      [['--texts', 'prompts.txt', '--providers', 'local-sphinx'], 'Choose speakers with --speaker ID… or --filter key=value… --group-by G --per-group K'],
      [['--texts', 'prompts.txt', '--filter', 'accent=Scottish', '--providers', 'local-sphinx'], '--filter needs --group-by G and --per-group K'],
      [['--texts', 'prompts.txt', '--speaker', 'spk_a', '--filter', 'accent=Scottish', '--providers', 'local-sphinx'], 'Give either --speaker or --filter, not both'],
      [['--texts', 'missing.txt', '--speaker', 'spk_a', '--providers', 'local-sphinx'], 'File not found: missing.txt'],
    ];
    for (const [args, message] of cases) {
      const r = await run(['eval', 'run', ...args]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(await evaluationCount()).toBe(0);
  });
});

describe('voxctl eval on a real service', () => {
  let id: string;

  it('runs the documented command: watch with plain progress lines when piped, summary table, HTML report', async () => {
    const r = await run(
      [
        'eval', 'run', '--texts', 'prompts.txt', '--filter', 'accent=Scottish', '--group-by', 'engine', '--per-group', '1',
        '--providers', 'local-sphinx', '--conditions', 'clean,telephone,noise:5', '--watch', '--report', 'r.html', '--name', 'scottish voices',
      ],
      280_000,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    id = /^(ev_\S+): 6 utterances$/m.exec(r.stderr)![1]!;
    // Piped: no bar, no escape codes; one line per change, ending with the final state.
    expect(r.stderr).not.toMatch(ANSI);
    expect(r.stderr).toMatch(new RegExp(`^${id}: completed 100% \\(6/6\\)$`, 'm'));
    expect(r.stderr).toContain(`Saved the report of ${id} to r.html`);
    // The summary: one row per condition × group (all, espeak, flite).
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('local-sphinx'));
    expect(rows).toHaveLength(9);
    // Each provider labelled with what it is bound to (`local-sphinx · en-us`).
    expect(rows.filter((l) => /^local-sphinx · en-us\s+\S+\s+all\s/.test(l))).toHaveLength(3);
    expect(r.stdout).toMatch(/^status\s+completed$/m);
    const report = readFileSync(join(sb.root, 'r.html'), 'utf8');
    expect(report.startsWith('<!doctype html>')).toBe(true);
    expect(report).toContain(id);
    expect(report).toContain('Evaluation scottish voices');
  }, 300_000);

  it('shows it as the API does (--json), as CSV, and lists it', async () => {
    const json = await run(['eval', 'show', id, '--json']);
    expect(json.exitCode, json.stderr).toBe(0);
    const api = (await call(s, 'GET', `/v1/evaluations/${id}`, { key: s.key })).body;
    const shown = JSON.parse(json.stdout);
    expect({ ...shown, report_url: '' }).toEqual({ ...api, report_url: '' });
    expect(shown.summary).toHaveLength(9);

    const csv = await run(['eval', 'show', id, '--csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'provider,condition,group,utterances,speakers,reference_words,substitutions,deletions,insertions,wer,wer_ci95_low,wer_ci95_high,cer,latency_p50_ms,latency_p95_ms,attempted,failed_requests',
    );
    expect(lines).toHaveLength(10);
    const all = api.summary.find((x: { group: string; condition: string }) => x.group === 'all' && x.condition === 'clean');
    expect(lines).toContain(
      `local-sphinx,clean,all,2,2,${all.reference_words},${all.substitutions},${all.deletions},${all.insertions},${all.wer},${all.wer_ci95[0]},${all.wer_ci95[1]},${all.cer},${all.latency_ms.p50},${all.latency_ms.p95},${all.attempted},0`,
    );

    const list = await run(['eval', 'list']);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${id}\\s+scottish voices\\s+completed\\s+100\\s+6\\s`, 'm'));
  });

  it('lists utterances with the API filters, as CSV with full texts', async () => {
    const csv = await run(['eval', 'utterances', id, '--all', '--csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'text_index,speaker_id,group,condition,provider,wer,substitutions,deletions,insertions,latency_ms,confidence,determinable,reference,transcript,error_code,error_message,audio_url',
    );
    expect(lines).toHaveLength(7);
    expect(lines.slice(1).every((l) => l.includes(',The birch canoe slid on the smooth planks.,'))).toBe(true);

    const telephone = await run(['eval', 'utterances', id, '--condition', 'telephone', '--group', 'flite', '--json']);
    const page = JSON.parse(telephone.stdout);
    expect(page.total).toBe(1);
    expect(page.items[0]).toMatchObject({ condition: 'telephone', group: 'flite', provider: 'local-sphinx' });
    // One provider: no failure is determinable.
    const determinable = JSON.parse((await run(['eval', 'utterances', id, '--determinable-only', '--json'])).stdout);
    expect(determinable.total).toBe(0);
    const errorsOnly = JSON.parse((await run(['eval', 'utterances', id, '--errors-only', '--json'])).stdout);
    expect(errorsOnly.items.every((u: { wer: number }) => u.wer > 0)).toBe(true);
  });

  it('saves the report with `eval report`, refusing to overwrite without --force', async () => {
    const again = await run(['eval', 'report', id, '-o', 'r.html']);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('r.html already exists');
    const forced = await run(['eval', 'report', id, '-o', 'r.html', '--force']);
    expect(forced.exitCode, forced.stderr).toBe(0);
    const fresh = await run(['eval', 'report', id, '-o', 'fresh.html']);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(readFileSync(join(sb.root, 'fresh.html'), 'utf8')).toContain('id="heat-map"');
    const missing = await run(['eval', 'report', 'ev_missing', '-o', 'x.html']);
    expect(missing.exitCode).toBe(4);
    expect(existsSync(join(sb.root, 'x.html'))).toBe(false);
  });

  it('fails the CI gate with exit 7, naming every row over --max-wer', async () => {
    // PocketSphinx cannot recognise eSpeak voices: the WER of this run is far above 0.5.
    const r = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', await espeakSpeaker(s.runtime.db), '--providers', 'local-sphinx', '--max-wer', '0.5'], 200_000);
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/Error: 1 provider\/condition row\(s\) exceed --max-wer 0\.5:\n {2}local-sphinx under clean: WER \d\.\d{4}\n/);
    expect(r.stdout).toMatch(/^local-sphinx · en-us\s+clean\s+all\s/m);

    // The same gate on `eval show`, so a finished run can be gated later (DESIGN §8.7).
    const id = /^(ev_\S+): 1 utterances$/m.exec(r.stderr)![1]!;
    const shown = await run(['eval', 'show', id, '--max-wer', '0.5']);
    expect(shown.exitCode, shown.stderr).toBe(7);
    expect(shown.stderr).toMatch(/Error: 1 provider\/condition row\(s\) exceed --max-wer 0\.5:\n {2}local-sphinx under clean: WER \d\.\d{4}\n/);
    expect(shown.stdout).toMatch(/^local-sphinx · en-us\s+clean\s+all\s/m);
    const json = await run(['eval', 'show', id, '--max-wer', '0.5', '--json']);
    expect(json.exitCode).toBe(7);
    expect(JSON.parse(json.stderr.trim())).toMatchObject({ error: { code: 'wer_gate_exceeded' } });
    expect(JSON.parse(json.stdout).evaluation_id).toBe(id);
    const passed = await run(['eval', 'show', id, '--max-wer', '50']);
    expect(passed.exitCode, passed.stderr).toBe(0);
    const bad = await run(['eval', 'show', id, '--max-wer', 'lots']);
    expect(bad.exitCode).toBe(2);
  }, 220_000);

  it('starts without --watch (id on stdout), cancels, and reports a missing evaluation with exit 4', async () => {
    const started = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', `${await fliteSpeaker(s.runtime.db)},${await espeakSpeaker(s.runtime.db)}`, '--providers', 'local-sphinx', '--conditions', 'clean,speed:1.5']);
    expect(started.exitCode, started.stderr).toBe(0);
    const newId = started.stdout.trim();
    expect(newId).toMatch(/^ev_/);
    expect(started.stderr).toContain(`4 utterances queued. Follow with: voxctl eval show ${newId}`);
    const cancelled = await run(['eval', 'cancel', newId, '--json']);
    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ evaluation_id: newId, status: 'cancelled' });
    expect((await pollEvaluation(s, newId)).status).toBe('cancelled');
    const shown = await run(['eval', 'show', newId]);
    expect(shown.stdout).toMatch(/^status\s+cancelled$/m);
    expect(shown.stderr).toContain('The summary appears when the evaluation is completed or partial (now cancelled).');
    // A watched evaluation that ended cancelled is not a success.
    const watched = await run(['eval', 'show', newId, '--watch']);
    expect(watched.exitCode).toBe(6);
    expect(watched.stderr).toContain(`${newId} ended cancelled`);
    // Nothing to gate in a run that never finished: said, never passed.
    const gated = await run(['eval', 'show', newId, '--max-wer', '0.5']);
    expect(gated.exitCode).toBe(1);
    expect(gated.stderr).toContain(`${newId} is cancelled: --max-wer gates a finished evaluation (completed or partial)`);
    const missing = await run(['eval', 'show', 'ev_nope']);
    expect(missing.exitCode).toBe(4);
  });

  it('runs a conversation: its DER gate fails as not measured on a provider without diarization, calls list and export as NIST files', async () => {
    const ids = `${await fliteSpeaker(s.runtime.db)},${await espeakSpeaker(s.runtime.db)}`;
    const r = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', ids, '--providers', 'local-sphinx', '--conversation', '2:4', '--overlap', '0.25', '--watch', '--max-der', '0.3'], 200_000);
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toContain('local-sphinx under clean: DER not measured (no diarization) cannot pass --max-der 0.3');
    const convId = /^(ev_\S+): 2 utterances$/m.exec(r.stderr)![1]!;
    expect(r.stdout).toMatch(/^conversation\s+2 calls × 4 turns, 2 speakers, overlap 0.25$/m);
    expect(r.stdout).toMatch(/^local-sphinx · en-us\s+clean\s+unsupported\s+unsupported\s+unsupported\s+unsupported\s+unsupported\s+\d+$/m);

    const calls = await run(['eval', 'calls', convId]);
    expect(calls.exitCode, calls.stderr).toBe(0);
    expect(calls.stdout).toMatch(/^call-1\s+local-sphinx\s+clean\s+\d\.\d{4}\s+unsupported\s+unsupported\s+2\s+-\s+\d+\s+false/m);
    expect(calls.stdout).toMatch(/^call-2\s+local-sphinx/m);

    const nist = await run(['eval', 'calls', convId, '--nist', 'nist']);
    expect(nist.exitCode, nist.stderr).toBe(0);
    expect(nist.stderr).toContain('Wrote nist/local-sphinx.clean.hypothesis.rttm');
    const rttm = readFileSync(join(sb.root, 'nist', 'reference.rttm'), 'utf8').trim().split('\n');
    expect(rttm).toHaveLength(8);
    expect(rttm.filter((l) => l.startsWith('SPEAKER call-2 1 '))).toHaveLength(4);
    const stm = readFileSync(join(sb.root, 'nist', 'reference.stm'), 'utf8').trim().split('\n');
    expect(stm[0]).toMatch(/^call-1 1 S1 \d+\.\d{3} \d+\.\d{3} The birch canoe slid on the smooth planks\.$/);
    // No speaker labels from PocketSphinx: an empty hypothesis, not an invented one.
    expect(readFileSync(join(sb.root, 'nist', 'local-sphinx.clean.hypothesis.rttm'), 'utf8')).toBe('');

    const csv = await run(['eval', 'show', convId, '--csv']);
    expect(csv.stdout.split('\n')[0]).toMatch(/,der,der_ci95_low,der_ci95_high,cpwer,cpwer_ci95_low,cpwer_ci95_high,speaker_count_accuracy,dropped_turns$/);
  }, 220_000);
});
