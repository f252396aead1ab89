import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, isWav, startServedSandbox, type Sandbox, type ServedCli } from '../helpers/cli.js';

// Issue 9 through the built CLI on a real detached service: downloads as scripts run them, errors as
// scripts read them, and the rough edges a person at a terminal hit.
let sb: Sandbox;
let server: ServedCli;
let env: Record<string, string>;

beforeAll(async () => void ({ sb, server, env } = await startServedSandbox()), 120_000);
afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

const wavs = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.wav')).sort();
const manifestOf = (dir: string) =>
  parse(readFileSync(join(dir, 'manifest.csv')), { columns: true }) as { index: string; speaker_id: string; text: string; file: string; duration_seconds: string; status: string }[];
/** Under --json stderr holds JSON lines only (a target line before a write, warnings); the error is the one with `error`. */
const jsonError = (stderr: string) => {
  const lines = stderr.trim().split('\n').map((l) => JSON.parse(l) as { error?: { code: string; message: string; status?: number; request_id?: string } });
  const errors = lines.filter((l) => l.error);
  expect(errors).toHaveLength(1);
  return errors[0]!.error!;
};

describe('downloads of 150 items (issue 9 item 2)', () => {
  let jobIds: string[] = [];
  const texts = Array.from({ length: 150 }, (_, i) => `Item number ${i}.`);

  it('submit --download: zero-padded names, one manifest.csv, no 429 from the signed URLs', async () => {
    const file = join(sb.root, 'items150.csv');
    writeFileSync(file, 'text\n' + texts.join('\n') + '\n');
    const dir = join(sb.root, 'dl150');
    const r = await cli(sb, ['batch', 'submit', file, '--download', dir, '--json'], { env, timeout: 400_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    jobIds = (JSON.parse(r.stdout) as { job_id: string }[]).map((j) => j.job_id);
    expect(jobIds).toHaveLength(2);
    const names = wavs(dir);
    expect(names).toHaveLength(150);
    expect(names[0]).toBe('000.wav');
    expect(names.at(-1)).toBe('149.wav');
    const manifest = manifestOf(dir);
    expect(Object.keys(manifest[0]!)).toEqual(['index', 'speaker_id', 'text', 'file', 'duration_seconds', 'status']);
    expect(manifest).toHaveLength(150);
    expect(manifest[42]).toMatchObject({ index: '42', text: 'Item number 42.', file: '042.wav', status: 'success' });
    expect(Number(manifest[42]!.duration_seconds)).toBeGreaterThan(0);
  }, 420_000);

  it('batch download resumes after an interruption with --skip-existing; a plain re-run refuses', async () => {
    const dir = join(sb.root, 'resume');
    // The second job holds items 0..49 of its own: download the first (100 items) and kill it midway.
    const child = execa(process.execPath, [BIN, 'batch', 'download', jobIds[0]!, dir], { env: { ...sb.env, ...env }, extendEnv: false, reject: false });
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && (!existsSync(dir) || wavs(dir).length < 20)) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await child;
    const before = wavs(dir);
    expect(before.length).toBeGreaterThanOrEqual(20);
    expect(before.length).toBeLessThan(100);
    // Every file under its final name is whole (written to .part, then renamed).
    for (const f of before) expect(isWav(readFileSync(join(dir, f))), f).toBe(true);
    const mtimes = new Map(before.map((f) => [f, statSync(join(dir, f)).mtimeMs]));

    const again = await cli(sb, ['batch', 'download', jobIds[0]!, dir], { env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('--skip-existing');

    const resumed = await cli(sb, ['batch', 'download', jobIds[0]!, dir, '--skip-existing', '--json'], { env, timeout: 180_000 });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ skipped: before.length, saved: 100 - before.length });
    expect(wavs(dir)).toHaveLength(100);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
    for (const [f, t] of mtimes) expect(statSync(join(dir, f)).mtimeMs, f).toBe(t);
    expect(manifestOf(dir)).toHaveLength(100);
    expect(wavs(dir)[0]).toBe('00.wav');
  }, 300_000);
});

describe('datasets draw random speakers in the upload’s language (issue 9 item 4)', () => {
  it('default English, --language picks another, an unknown one is 400 and exit 2; download writes the manifest', async () => {
    const facets = JSON.parse((await cli(sb, ['speakers', 'facets', '--json'], { env })).stdout) as { native_language: { value: string }[] };
    const other = facets.native_language.map((v) => v.value).find((v) => v !== 'English')!;
    const csv = join(sb.root, 'lang.csv');
    writeFileSync(csv, 'text,speaker_id\n' + Array.from({ length: 12 }, (_, i) => `row ${i},`).join('\n') + '\n');
    const languageOf = async (id: string) => {
      const ds = JSON.parse((await cli(sb, ['dataset', 'show', id, '--json'], { env })).stdout) as { rows: { speaker_id: string }[] };
      const langs = new Set<string>();
      for (const id of new Set(ds.rows.map((r) => r.speaker_id))) {
        langs.add((JSON.parse((await cli(sb, ['speakers', 'show', id, '--json'], { env })).stdout) as { native_language: string }).native_language);
      }
      return [...langs];
    };
    const english = await cli(sb, ['dataset', 'upload', csv, '--name', 'en', '--json'], { env });
    expect(english.exitCode, english.stderr).toBe(0);
    expect(await languageOf((JSON.parse(english.stdout) as { dataset_id: string }).dataset_id)).toEqual(['English']);
    const chosen = await cli(sb, ['dataset', 'upload', csv, '--name', 'other', '--language', other.toUpperCase(), '--generate-audio', '--watch', '--json'], { env, timeout: 120_000 });
    expect(chosen.exitCode, chosen.stderr).toBe(0);
    const id = (JSON.parse(chosen.stdout) as { dataset_id: string }).dataset_id;
    expect(await languageOf(id)).toEqual([other]);
    const unknown = await cli(sb, ['dataset', 'upload', csv, '--name', 'x', '--language', 'Klingon', '--json'], { env });
    expect(unknown.exitCode).toBe(2);
    expect(jsonError(unknown.stderr)).toMatchObject({ code: 'validation_failed', message: 'Unknown language: Klingon', status: 400 });

    const dir = join(sb.root, 'ds-dl');
    expect((await cli(sb, ['dataset', 'download', id, dir], { env })).exitCode).toBe(0);
    expect(wavs(dir)).toEqual(Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')}.wav`));
    const m = manifestOf(dir);
    expect(m[3]).toMatchObject({ index: '3', text: 'row 3', file: '03.wav', status: 'success' });
    expect(Number(m[3]!.duration_seconds)).toBeGreaterThan(0);
  }, 240_000);
});

describe('errors scripts can read (issue 9 item 7)', () => {
  it('--json errors are one object on stderr with code, message, status and request_id', async () => {
    const r = await cli(sb, ['speakers', 'show', 'spk_nope', '--json'], { env });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    const e = jsonError(r.stderr);
    expect(e).toMatchObject({ code: 'speaker_not_found', message: 'Speaker not found: spk_nope', status: 404 });
    expect(e.request_id).toBeTruthy();
    const usage = await cli(sb, ['speakers', 'list', '--bogus', '--json'], { env });
    expect(usage.exitCode).toBe(2);
    expect(jsonError(usage.stderr)).toMatchObject({ code: 'usage_error' });
    const net = await cli(sb, ['whoami', '--json'], { env: { ...env, VOXCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expect(jsonError(net.stderr)).toMatchObject({ code: 'network_error' });
  });

  it('tts say: the speaker id, the text length with a pointer to batch, and the same exit code for the same invalid input', async () => {
    const nf = await cli(sb, ['tts', 'say', 'hello', '--speaker', 'spk_nope', '-o', join(sb.root, 'nf.wav')], { env });
    expect(nf.exitCode).toBe(4);
    expect(nf.stderr).toContain('Speaker not found: spk_nope');
    const long = await cli(sb, ['tts', 'say', 'a'.repeat(2345), '-o', join(sb.root, 'long.wav')], { env });
    expect(long.exitCode).toBe(2);
    expect(long.stderr).toContain('2345');
    expect(long.stderr).toContain('batch');
    // Empty text: the CLI checks it when nothing is given, the service when blanks are given; both exit 2.
    expect((await cli(sb, ['tts', 'say'], { env })).exitCode).toBe(2);
    const blank = await cli(sb, ['tts', 'say', '   ', '-o', join(sb.root, 'blank.wav')], { env });
    expect(blank.exitCode).toBe(2);
    expect(blank.stderr).toContain('Text must not be empty');
  });

  it('a dataset the CLI refuses and one the service refuses exit alike (2)', async () => {
    const local = join(sb.root, 'bad-local.csv');
    writeFileSync(local, 'text\nfine\n""\n');
    const l = await cli(sb, ['dataset', 'upload', local, '--json'], { env });
    expect(l.exitCode).toBe(2);
    expect(jsonError(l.stderr)).toMatchObject({ code: 'validation_failed' });
    const remote = join(sb.root, 'bad-remote.csv');
    writeFileSync(remote, 'text,speaker_id\nfine,spk_nope\n');
    const r = await cli(sb, ['dataset', 'upload', remote, '--json'], { env });
    expect(r.exitCode).toBe(2);
    expect(jsonError(r.stderr)).toMatchObject({ code: 'validation_failed', message: 'Line 2: Speaker not found: spk_nope', status: 400 });
  });

  it('a read-only key is told it is read-only', async () => {
    const created = await cli(sb, ['keys', 'create', '--scope', 'read', '--json'], { env });
    expect(created.exitCode, created.stderr).toBe(0);
    const readKey = (JSON.parse(created.stdout) as { key: string }).key;
    const r = await cli(sb, ['tts', 'say', 'hi', '-o', join(sb.root, 'ro.wav')], { env: { ...env, VOXCTL_API_KEY: readKey } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('this key is read-only');
    expect(r.stderr).not.toContain('billing');
  });
});

describe('rough edges (issue 9 items 5, 8, 10)', () => {
  it('a tts say in a loop costs the service one request for its work besides the signed audio URL', async () => {
    expect((await cli(sb, ['tts', 'say', 'warm up', '-o', '/dev/null'], { env })).exitCode).toBe(0);
    const v = await cli(sb, ['tts', 'say', 'counted', '-o', '/dev/null', '--verbose'], { env });
    expect(v.exitCode, v.stderr).toBe(0);
    const requests = v.stderr.split('\n').filter((l) => l.startsWith('→ '));
    expect(requests.filter((l) => !l.includes('/v1/audio/')).map((l) => l.replace(/http:\/\/[^/]+/, ''))).toEqual(['→ POST /v1/tts/synthesize']);
  });

  it('-o /dev/null needs no --force', async () => {
    const r = await cli(sb, ['tts', 'say', 'into the void', '-o', '/dev/null'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('config set speaker is checked against the reachable service', async () => {
    const bad = await cli(sb, ['config', 'set', 'speaker', 'spk_nope'], { env });
    expect(bad.exitCode).toBe(4);
    expect(bad.stderr).toContain('Speaker not found: spk_nope');
    expect((await cli(sb, ['config', 'get', 'speaker'], { env })).stdout).toBe('');
    const id = (JSON.parse((await cli(sb, ['speakers', 'list', '--limit', '1', '--json'], { env })).stdout) as { items: { id: string }[] }).items[0]!.id;
    expect((await cli(sb, ['config', 'set', 'speaker', id], { env })).exitCode).toBe(0);
    expect((await cli(sb, ['config', 'get', 'speaker'], { env })).stdout.trim()).toBe(id);
    // Unreachable: stored with a warning rather than refused.
    const off = await cli(sb, ['config', 'set', 'speaker', id], { env: { ...env, VOXCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expect(off.exitCode).toBe(0);
    expect(off.stderr).toContain('not checked');
    await cli(sb, ['config', 'unset', 'speaker'], { env });
  });

  it('usage shows the minute and day request limits, used and left', async () => {
    const r = await cli(sb, ['usage'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/requests\/minute\s+\d+ \/ 300 used, \d+ left/);
    expect(r.stdout).toMatch(/requests\/day\s+[\d,]+ \/ 10,000 used, [\d,]+ left/);
    const j = JSON.parse((await cli(sb, ['usage', '--json'], { env })).stdout) as { characters_limit: number; rate_limits: { per_minute: { limit: number }; per_day: { limit: number } } };
    expect(j.characters_limit).toBe(1_000_000);
    expect(j.rate_limits).toMatchObject({ per_minute: { limit: 300 }, per_day: { limit: 10_000 } });
  });

  it('stt transcribe exits 1 when every provider failed and names the config file once', async () => {
    const speech = join(import.meta.dirname, '../../fixtures/speech-slt.wav');
    const none = await cli(sb, ['stt', 'transcribe', speech, '--providers', 'stt-b'], { env });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain('voxctl.config.json');
    const all = await cli(sb, ['stt', 'transcribe', speech, '--providers', 'all'], { env, timeout: 120_000 });
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stderr.split('\n').filter((l) => l.includes('voxctl.config.json'))).toHaveLength(1);
    expect(all.stdout).not.toContain('provider_not_configured');
  }, 180_000);

  it('completion asks the service for speaker ids, filter values, profiles and providers', async () => {
    const complete = async (...words: string[]) => cli(sb, ['__complete', '--', ...words], { env });
    const genders = await complete('speakers', 'list', '--gender', '');
    expect(genders.exitCode).toBe(0);
    expect(genders.stdout.split('\n')).toEqual(expect.arrayContaining(['Female', 'Male']));
    const ids = (await complete('tts', 'say', '--speaker', 'spk_')).stdout.trim().split('\n');
    expect(ids.length).toBeGreaterThan(100);
    expect(ids.every((i) => i.startsWith('spk_'))).toBe(true);
    expect((await complete('stt', 'compare', 'a.wav', '--providers', 'local-sphinx,stt-')).stdout).toContain('local-sphinx,stt-b');
    await cli(sb, ['profile', 'add', 'staging', '--base-url', 'http://127.0.0.1:9']);
    expect((await complete('--profile', 'st')).stdout.trim()).toBe('staging');
    expect((await complete('speakers', '')).exitCode).toBe(1);
    expect((await cli(sb, ['completion', 'bash'])).stdout).toContain('voxctl __complete --');
  });

  it('serve status --json tells a detached service apart; serve restart keeps host and port', async () => {
    const before = JSON.parse((await cli(sb, ['serve', 'status', '--json'])).stdout) as { pid: number; url: string; autostarted: boolean };
    expect(before).toMatchObject({ url: server.url, autostarted: false });
    const r = await cli(sb, ['serve', 'restart', '--json'], { env: { VOXCTL_BOOTSTRAP_KEY: server.key }, timeout: 90_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const restarted = JSON.parse(r.stdout) as { pid: number; url: string; restarted: boolean };
    expect(restarted).toMatchObject({ url: server.url, restarted: true });
    expect(restarted.pid).not.toBe(before.pid);
    expect((await cli(sb, ['whoami'], { env })).exitCode).toBe(0);
  }, 120_000);

  it('serve restart checks the new config before it stops anything: a typo leaves the service running', async () => {
    const before = JSON.parse((await cli(sb, ['serve', 'status', '--json'])).stdout) as { pid: number };
    const file = join(sb.dataDir, 'voxctl.config.json');
    writeFileSync(file, JSON.stringify({ stt: { providers: { 'stt-b': { adaptor: 'deepgram' } } } }));
    try {
      const r = await cli(sb, ['serve', 'restart'], { env: { VOXCTL_BOOTSTRAP_KEY: server.key }, timeout: 90_000 });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`Error: Not restarted: Invalid server config ${file}: unknown key "stt.providers.stt-b.adaptor"`);
      expect(r.stderr).toContain(`the running service (pid ${before.pid}) is untouched`);
      const missing = await cli(sb, ['serve', 'restart', '--config', join(sb.root, 'nope.json'), '--json']);
      expect(missing.exitCode).toBe(1);
      expect(JSON.parse(missing.stderr.trim()).error.message).toContain('Config file not found');
    } finally {
      rmSync(file, { force: true });
    }
    const after = JSON.parse((await cli(sb, ['serve', 'status', '--json'])).stdout) as { pid: number; running: boolean };
    expect(after).toMatchObject({ pid: before.pid, running: true });
    expect((await cli(sb, ['whoami'], { env })).exitCode).toBe(0);
  }, 120_000);

  it('the detached service does not carry VOXCTL_BOOTSTRAP_KEY in its environment (issue 8 item 9)', async () => {
    const { pid } = JSON.parse(readFileSync(join(sb.dataDir, 'server.json'), 'utf8')) as { pid: number };
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    expect(environ).not.toContain('VOXCTL_BOOTSTRAP_KEY');
    expect(environ).not.toContain(server.key);
  });

  it('the detached service starts with one malloc arena and a fixed mmap threshold unless the caller set them', async () => {
    const { pid } = JSON.parse(readFileSync(join(sb.dataDir, 'server.json'), 'utf8')) as { pid: number };
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ).toContain('MALLOC_ARENA_MAX=1');
    expect(environ).toContain('MALLOC_MMAP_THRESHOLD_=131072');
  });
});
