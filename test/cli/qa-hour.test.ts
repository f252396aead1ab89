import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCharactersUsed, subtractCharactersUsed } from '../../src/server/features/limits/usage-repository.js';
import { cli, createSandbox, isWav, type Sandbox } from '../helpers/cli.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, espeakSpeaker, fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { closeTestDispatcher, testContext } from '../helpers/cli-context.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// What a QA engineer hit in the first hour (issue 19), through the built CLI (run `npm run build`
// first) against a real service whose stt-b is bound to a loopback Deepgram speaking its wire format.
let s: TestServer;
let sb: Sandbox;
let deepgram: FakeVendor;
let flite: string;
let espeak: string;
const cfgDir = mkdtempSync(join(tmpdir(), 'voxctl-qahour-'));
const env = () => ({ VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key });
const run = (args: string[], opts: { env?: Record<string, string | undefined>; timeout?: number } = {}) =>
  cli(sb, args, { env: { ...env(), ...opts.env }, timeout: opts.timeout ?? 60_000 });
const evaluationCount = async () => (await call(s, 'GET', '/v1/evaluations', { key: s.key })).body.total as number;
/** Every stderr line of a --json run parses as JSON (DESIGN §7). */
const jsonLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`stderr line is not JSON: ${l}`);
      }
    });

beforeAll(async () => {
  deepgram = await startFakeVendor('deepgram');
  process.env.VOXCTL_QA_DEEPGRAM_KEY = deepgram.key;
  const configPath = join(cfgDir, 'voxctl.config.json');
  writeFileSync(
    configPath,
    JSON.stringify({ stt: { providers: { 'stt-b': { adapter: 'deepgram', model: 'nova-3', base_url: deepgram.url, api_key_env: 'VOXCTL_QA_DEEPGRAM_KEY' } } } }),
  );
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  sb = createSandbox();
  flite = await fliteSpeaker(s.runtime.db);
  espeak = await espeakSpeaker(s.runtime.db);
  writeFileSync(join(sb.root, 'prompts.txt'), 'Press two for technical support.\n');
}, 60_000);
afterAll(async () => {
  await closeTestDispatcher();
  await s?.close();
  await deepgram?.close();
  sb?.cleanup();
  rmSync(cfgDir, { recursive: true, force: true });
});

describe('-o - writes to stdout when it is not a terminal (item 9)', () => {
  it('tts say and speakers sample write the WAV to piped stdout, never a file named -', async () => {
    const say = await run(['tts', 'say', 'Hello there.', '--speaker', flite, '-o', '-']);
    expect(say.exitCode, say.stderr).toBe(0);
    expect(isWav(say.raw)).toBe(true);
    const sample = await run(['speakers', 'sample', flite, '-o', '-']);
    expect(sample.exitCode, sample.stderr).toBe(0);
    expect(isWav(sample.raw)).toBe(true);
    expect(readdirSync(sb.root)).not.toContain('-');
    const both = await run(['tts', 'say', 'Hello there.', '--speaker', flite, '-o', '-', '--json']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('-o - and --json both write to stdout');
  });

  it('refuses -o - on a terminal with a usage error, before anything is synthesised', async () => {
    const before = await charactersUsed(s);
    const t = testContext({ env: env(), tty: true });
    expect(await t.run(['tts', 'say', 'Hello there.', '--speaker', flite, '-o', '-'])).toBe(2);
    expect(t.stderr.text).toContain('Refusing to write audio to a terminal (-o -)');
    expect(t.stdout.bytes.length).toBe(0);
    expect(await charactersUsed(s)).toBe(before);
  });
});

describe('providers named with vendor and model, guidance, dry run, JSON stderr (items 3, 10, 11, 12)', () => {
  let evaluationId: string;

  it('eval run --providers all --dry-run: configured providers only, utterances, characters, audio minutes, no cost without prices; creates nothing', async () => {
    const count = await evaluationCount();
    const r = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', `${flite},${espeak}`, '--providers', 'all', '--conditions', 'clean,speed:2', '--dry-run', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    jsonLines(r.stderr);
    const d = JSON.parse(r.stdout) as Record<string, unknown> & { providers: { provider: string; label: string; audio_minutes: number; cost_usd: null }[] };
    // `all` = every configured provider: stt-b (bound) and local-sphinx, never the seven unbound tokens.
    expect(d.providers.map((p) => p.provider).sort()).toEqual(['local-sphinx', 'stt-b']);
    expect(d.providers.find((p) => p.provider === 'stt-b')!.label).toBe('stt-b · deepgram nova-3');
    const chars = [...'Press two for technical support.'].length;
    expect(d).toMatchObject({ dry_run: true, texts: 1, speakers: 2, utterances: 1 * 2 * 2 * 2, characters: chars * 2, cost_usd: null, within_limits: true });
    // 15 characters a second; speed:2 sends half the audio.
    expect(d.providers[0]!.audio_minutes).toBeCloseTo(((chars / 15 / 60) * 2 * 1.5), 2);
    expect(String(d.audio_minutes_estimate)).toContain('15 characters per second');
    expect(typeof d.characters_left).toBe('number');
    const plain = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', flite, '--providers', 'stt-b', '--dry-run']);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^utterances\s+1 = 1 texts × 1 speakers × 1 conditions × 1 providers$/m);
    expect(plain.stdout).toMatch(/^audio minutes\s+0\.04 sent to the providers, estimated at 15 characters per second/m);
    expect(plain.stdout).toContain('stt-b · deepgram nova-3');
    expect(plain.stderr).toContain('Dry run: nothing was created.');
    expect(await evaluationCount()).toBe(count);
  });

  it('eval run --watch --json: every stderr line is JSON (progress events, a Node warning), the result on stdout', async () => {
    const warner = join(sb.root, 'late-warning.mjs');
    writeFileSync(warner, "setTimeout(() => process.emitWarning('late warning'), 300);\n");
    const r = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', flite, '--providers', 'stt-b', '--watch', '--json'], {
      // A warning of Node's own, emitted once the CLI runs: under --json it is a JSON line too.
      env: { NODE_OPTIONS: `--import=${pathToFileURL(warner).href}` },
      timeout: 120_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = jsonLines(r.stderr);
    const progress = lines.filter((l) => l.event === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ status: 'completed', progress: 100, done: 1, total: 1 });
    expect(lines).toContainEqual({ warning: { message: 'late warning', name: 'Warning' } });
    evaluationId = (JSON.parse(r.stdout) as { evaluation_id: string }).evaluation_id;
    expect(evaluationId).toMatch(/^ev_/);
  }, 130_000);

  it('labels providers with vendor and model in stt providers, stt transcribe and eval show', async () => {
    const providers = await run(['stt', 'providers']);
    expect(providers.exitCode, providers.stderr).toBe(0);
    expect(providers.stdout).toMatch(/^stt-b\s+stt-b · deepgram nova-3\s+ready/m);
    const csv = await run(['stt', 'providers', '--csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toBe('id,state,adapter,model,streaming,detail');
    expect(csv.stdout).toContain('stt-b,ready,deepgram,nova-3,yes,');
    const shown = await run(['eval', 'show', evaluationId]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^providers\s+stt-b · deepgram nova-3$/m);
    expect(shown.stdout).toMatch(/^stt-b · deepgram nova-3\s+clean\s+all\s/m);
    // CSV and JSON keep the bare token (scripts join on it).
    expect((await run(['eval', 'show', evaluationId, '--csv'])).stdout).toMatch(/^stt-b,clean,all,/m);

    const say = await run(['tts', 'say', 'Please call me back.', '--speaker', flite, '-o', 'call.wav']);
    expect(say.exitCode, say.stderr).toBe(0);
    const t = await run(['stt', 'transcribe', 'call.wav', '--providers', 'stt-b'], { timeout: 120_000 });
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^stt-b · deepgram nova-3\s+Please call me back after the meeting/m);
  }, 130_000);

  it('eval report -o - writes the HTML to piped stdout', async () => {
    const r = await run(['eval', 'report', evaluationId, '-o', '-']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.startsWith('<!doctype html>')).toBe(true);
    expect(existsSync(join(sb.root, '-'))).toBe(false);
  });

  it('a filter value no speaker has: the closest values on stderr, exit 0', async () => {
    const r = await run(['speakers', 'list', '--accent', 'scotish']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Warning: No speakers match: no speaker has --accent 'scotish' \(closest: Scottish[,)]/m);
    expect(r.stderr).toContain('`voxctl speakers facets`');
    const count = await evaluationCount();
    const ev = await run(['eval', 'run', '--texts', 'prompts.txt', '--filter', 'accent=scotish', '--group-by', 'engine', '--per-group', '1', '--providers', 'stt-b']);
    expect(ev.exitCode).toBe(2);
    expect(ev.stderr).toMatch(/^Warning: No speakers match: no speaker has --filter accent=scotish \(closest: Scottish[,)]/m);
    expect(ev.stderr).toContain('Error: No speakers match the filter');
    expect(await evaluationCount()).toBe(count);
    const json = await run(['speakers', 'list', '--accent', 'nope', '--json']);
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout).total).toBe(0);
    const [warning] = jsonLines(json.stderr);
    expect((warning!.warning as { message: string }).message).toContain("no speaker has --accent 'nope' (closest: ");
  });

  it('an unknown provider lists the valid tokens; only unconfigured providers: no empty table, the config file named, exit 1', async () => {
    const unknown = await run(['stt', 'transcribe', 'call.wav', '--providers', 'stt-zz']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('Error: Unknown provider: stt-zz');
    expect(unknown.stderr).toContain('valid providers: stt-a-model-1, stt-a-model-2, stt-b, stt-c, stt-d, stt-e, stt-f, stt-g, stt-h, local-sphinx');
    const evalUnknown = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', flite, '--providers', 'stt-zz', '--json']);
    expect(evalUnknown.exitCode).toBe(2);
    expect(jsonLines(evalUnknown.stderr)[0]).toMatchObject({ error: { code: 'usage_error', message: 'Unknown provider: stt-zz' } });

    const none = await run(['stt', 'transcribe', 'call.wav', '--providers', 'stt-c,stt-d'], { timeout: 120_000 });
    expect(none.exitCode, none.stderr).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('not configured on the service: stt-c, stt-d — bind them in the server\'s voxctl.config.json');
    expect(none.stderr).toContain('None of the requested providers is configured on the service (stt-c, stt-d)');
    const noneJson = await run(['stt', 'transcribe', 'call.wav', '--providers', 'stt-c', '--json'], { timeout: 120_000 });
    expect(noneJson.exitCode).toBe(1);
    expect(jsonLines(noneJson.stderr).map((l) => Object.keys(l)[0])).toEqual(['warning', 'error']);
  }, 130_000);

  it('more commands under --json: progress, downloads, target notice, --verbose, warnings, errors, keychain fallback — every stderr line parses', async () => {
    writeFileSync(join(sb.root, 'two.csv'), `text,speaker_id\nOne two three.,${flite}\nFour five six.,${flite}\n`);
    const cases: string[][] = [
      ['tts', 'say', 'Hello there.', '--speaker', flite, '-o', 'hello.wav', '--json', '--verbose'],
      ['batch', 'submit', 'two.csv', '--download', 'two', '--json'],
      ['dataset', 'upload', 'two.csv', '--generate-audio', '--watch', '--json'],
      ['speakers', 'list', '--gender', 'Nope', '--json'],
      ['eval', 'run', '--texts', 'prompts.txt', '--speaker', flite, '--providers', 'stt-b', '--max-wer', '0', '--json'],
      ['stt', 'transcribe', 'call.wav', '--providers', 'stt-b,stt-c', '--json'],
      ['config', 'set', 'speaker', flite, '--json'],
      ['no-such-command', '--json'],
      ['speakers', 'list', '--limit', '2', '--json'],
      ['eval', 'show', evaluationId, '--max-wer', '0', '--json'],
      ['stt', 'providers', '--json'],
      ['doctor', '--json'],
      ['usage', '--json'],
    ];
    for (const args of cases) {
      const r = await run(args, { timeout: 120_000 });
      const lines = jsonLines(r.stderr);
      if (args[0] === 'batch' || args[0] === 'dataset') expect(lines.some((l) => l.event === 'progress'), args.join(' ')).toBe(true);
      if (args[0] === 'tts') {
        expect(lines.some((l) => 'target' in l)).toBe(true);
        expect(lines.some((l) => 'debug' in l)).toBe(true);
      }
    }
    const login = await cli(sb, ['auth', 'login', '--with-token', '--json'], { env: { VOXCTL_BASE_URL: s.url }, input: s.key });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(jsonLines(login.stderr).some((l) => String((l.warning as { message?: string } | undefined)?.message).startsWith('keychain unreachable'))).toBe(true);
  }, 300_000);
});

describe('the quota error says how many characters were needed and how many are left (item 12)', () => {
  it('tts say, batch submit, dataset upload --generate-audio and eval run', async () => {
    const usage = (await call(s, 'GET', '/v1/users/usage', { key: s.key })).body as { characters_used: number; characters_limit: number; period_start: string };
    const me = (await call(s, 'GET', '/v1/users/me', { key: s.key })).body as { id: string };
    const fill = usage.characters_limit - usage.characters_used - 5;
    await addCharactersUsed(s.runtime.db, me.id, usage.period_start, fill);
    try {
      const say = await run(['tts', 'say', 'Hello there friend.', '--speaker', flite, '-o', 'q.wav']);
      expect(say.exitCode).toBe(5);
      expect(say.stderr).toContain('Error: Character quota exceeded for this billing period');
      expect(say.stderr).toContain(`Hint: this needs 19 characters; 5 of ${usage.characters_limit} are left this billing period; the character quota renews on`);
      const json = await run(['tts', 'say', 'Hello there friend.', '--speaker', flite, '-o', 'q.wav', '--json']);
      const [error] = jsonLines(json.stderr).filter((l) => 'error' in l);
      // The service's message unchanged; the arithmetic beside it.
      expect(error!.error).toMatchObject({ code: 'quota_exceeded', message: 'Character quota exceeded for this billing period', status: 429, characters_needed: 19, characters_left: 5 });
      const ev = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', `${flite},${espeak}`, '--providers', 'stt-b']);
      expect(ev.exitCode).toBe(5);
      expect(ev.stderr).toContain(`Hint: this needs ${[...'Press two for technical support.'].length * 2} characters; 5 of ${usage.characters_limit} are left`);
      writeFileSync(join(sb.root, 'lines.csv'), `text,speaker_id\nOne two three.,${flite}\nFour five six.,${flite}\n`);
      const batch = await run(['batch', 'submit', 'lines.csv']);
      expect(batch.exitCode).toBe(5);
      expect(batch.stderr).toContain('Hint: this needs 28 characters; 5 of');
      const dataset = await run(['dataset', 'upload', 'lines.csv', '--generate-audio']);
      expect(dataset.exitCode).toBe(5);
      expect(dataset.stderr).toContain('Hint: this needs 28 characters; 5 of');
    } finally {
      await subtractCharactersUsed(s.runtime.db, me.id, usage.period_start, fill);
    }
  }, 120_000);
});
