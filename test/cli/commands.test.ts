import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSI, cli, createSandbox, isWav, serveDetached, type Sandbox, type ServedCli } from '../helpers/cli.js';
import { testContext } from '../helpers/cli-context.js';

// End to end: the BUILT bin/voxctl.js against a real `voxctl serve --detach` on a temp data dir and HOME.
let sb: Sandbox;
let server: ServedCli;
let env: Record<string, string>;
const SPEECH = join(import.meta.dirname, '../../fixtures/speech-slt.wav');

beforeAll(async () => {
  sb = createSandbox();
  server = await serveDetached(sb);
  env = { VOXCTL_BASE_URL: server.url, VOXCTL_API_KEY: server.key };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

const json = (s: string) => JSON.parse(s) as Record<string, unknown> & { items: Record<string, unknown>[] };

describe('basics', () => {
  it('prints the version and help with examples on every command', async () => {
    const v = await cli(sb, ['--version']);
    expect(v.exitCode).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // Help in-process (the program the binary runs, with captured output): the binary itself is spawned above.
    for (const path of [
      ['auth', 'login'], ['auth', 'status'], ['config', 'set'], ['profile', 'add'], ['speakers', 'list'], ['speakers', 'pick'],
      ['speakers', 'sample'], ['tts', 'say'], ['batch', 'submit'], ['jobs', 'status'], ['dataset', 'upload'], ['dataset', 'download'],
      ['stt', 'transcribe'], ['stt', 'compare'], ['stt', 'accuracy'], ['usage'], ['whoami'], ['health'], ['billing', 'portal'],
      ['keys', 'create'], ['doctor'], ['completion'], ['serve'], ['serve', 'logs'],
    ]) {
      const t = testContext();
      expect(await t.run([...path, '--help']), path.join(' ')).toBe(0);
      expect(t.stdout.text, path.join(' ')).toContain('Examples:');
    }
  }, 120_000);

  it('exits 2 on usage errors', async () => {
    expect((await cli(sb, ['speakers', 'list', '--bogus'], { env })).exitCode).toBe(2);
    expect((await cli(sb, ['speakers', 'list', '--limit', '500'], { env })).exitCode).toBe(2);
    const noText = await cli(sb, ['tts', 'say'], { env });
    expect(noText.exitCode).toBe(2);
    expect(noText.stderr).toContain('No text given');
    expect((await cli(sb, ['completion', 'tcsh'])).exitCode).toBe(2);
  });

  it('names the target and suggests serve status on network errors', async () => {
    const r = await cli(sb, ['whoami'], { env: { ...env, VOXCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('http://127.0.0.1:9');
    expect(r.stderr).toContain('voxctl serve status');
  });

  it('health, whoami and usage print API objects with --json and plain text when piped', async () => {
    const h = await cli(sb, ['health', '--json'], { env });
    expect(h.exitCode).toBe(0);
    expect(json(h.stdout)).toMatchObject({ status: 'ok', checks: { database: 'ok' } });
    const me = await cli(sb, ['whoami', '--json'], { env });
    expect(json(me.stdout)).toMatchObject({ email: 'admin@localhost', subscription_tier: 'pro' });
    const u = await cli(sb, ['usage'], { env });
    expect(u.exitCode).toBe(0);
    expect(u.stdout).toMatch(/characters\s+\d/);
    expect(u.stdout).not.toMatch(ANSI);
    expect(u.stdout).not.toContain('█');
    expect(json((await cli(sb, ['usage', '--json'], { env })).stdout)).toHaveProperty('characters_limit', 1_000_000);
  });

  it('--verbose logs requests without the key', async () => {
    const r = await cli(sb, ['whoami', '--verbose'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('GET');
    expect(r.stderr).toContain('/v1/users/me');
    expect(r.stderr + r.stdout).not.toContain(server.key);
  });
});

describe('auth', () => {
  it('exits 3 with a login hint without a key or with a bad key', async () => {
    const none = await cli(sb, ['whoami'], { env: { VOXCTL_BASE_URL: server.url } });
    expect(none.exitCode).toBe(3);
    expect(none.stderr).toContain('voxctl auth login');
    const bad = await cli(sb, ['whoami'], { env: { ...env, VOXCTL_API_KEY: 'vox_' + 'x'.repeat(40) } });
    expect(bad.exitCode).toBe(3);
    expect(bad.stderr).toContain('Invalid or expired API key');
    expect(bad.stderr).toContain('voxctl auth login');
    expect(bad.stderr).not.toContain('x'.repeat(40));
  });

  it('logs in from stdin, reports status, prints the token, logs out; the key never lands in config', async () => {
    const base = { VOXCTL_BASE_URL: server.url };
    const rejected = await cli(sb, ['auth', 'login', '--with-token'], { env: base, input: 'vox_' + 'n'.repeat(40) });
    expect(rejected.exitCode).toBe(3);
    expect(rejected.stderr).toContain('rejected');
    const login = await cli(sb, ['auth', 'login', '--with-token'], { env: base, input: server.key + '\n' });
    expect(login.exitCode, login.stderr).toBe(0);
    // No D-Bus in this sandbox: the file fallback engages with its one-line warning.
    expect(login.stderr).toMatch(/Warning: keychain unreachable .*mode 0600/);
    const status = await cli(sb, ['auth', 'status', '--json'], { env: base });
    expect(status.exitCode).toBe(0);
    expect(json(status.stdout)).toMatchObject({ state: 'ok', key_source: 'file', keychain: 'unreachable', user: { email: 'admin@localhost' } });
    expect(status.stdout).not.toContain(server.key);
    const token = await cli(sb, ['auth', 'token'], { env: base });
    expect(token.stdout.trim()).toBe(server.key);
    for (const f of readdirSync(sb.configDir)) {
      if (f !== 'credentials.json') expect(readFileSync(join(sb.configDir, f), 'utf8')).not.toContain(server.key);
    }
    expect((await cli(sb, ['auth', 'logout'], { env: base })).exitCode).toBe(0);
    expect((await cli(sb, ['auth', 'token'], { env: base })).exitCode).toBe(3);
    const after = await cli(sb, ['auth', 'status'], { env: base });
    expect(after.exitCode).toBe(3);
    expect(after.stdout).toContain('not logged in');
  });

  it('refuses to prompt without a terminal (usage error)', async () => {
    const r = await cli(sb, ['auth', 'login'], { env: { VOXCTL_BASE_URL: server.url } });
    expect(r.exitCode).toBe(2);
  });
});

describe('config and profiles', () => {
  it('sets, gets and lists settings and profiles', async () => {
    expect((await cli(sb, ['config', 'set', 'output_format', 'yaml'])).exitCode).toBe(2);
    expect((await cli(sb, ['config', 'set', 'nope', 'x'])).exitCode).toBe(2);
    expect((await cli(sb, ['config', 'set', 'output_format', 'csv'])).exitCode).toBe(0);
    expect((await cli(sb, ['config', 'get', 'output_format'])).stdout.trim()).toBe('csv');
    expect((await cli(sb, ['profile', 'add', 'bad name', '--base-url', 'x'])).exitCode).toBe(2);
    expect((await cli(sb, ['profile', 'add', 'srv', '--base-url', server.url])).exitCode).toBe(0);
    expect((await cli(sb, ['profile', 'use', 'srv'])).exitCode).toBe(0);
    const list = await cli(sb, ['profile', 'list', '--csv']);
    const rows = parse(list.stdout, { columns: true }) as { name: string; current: string }[];
    expect(rows.find((r) => r.name === 'srv')?.current).toBe('*');
    const cfg = json((await cli(sb, ['config', 'list', '--json'])).stdout);
    expect(cfg).toMatchObject({ current_profile: 'srv', defaults: { output_format: 'csv' } });
    // A write against a non-default target says where it goes, on stderr.
    const me = await cli(sb, ['keys', 'create', '--name', 'via-profile', '--json'], { env: { VOXCTL_API_KEY: server.key } });
    expect(me.exitCode, me.stderr).toBe(0);
    expect(me.stderr).toContain(`profile srv → ${server.url}`);
    expect((await cli(sb, ['whoami', '--profile', 'nope'])).exitCode).toBe(2);
    expect((await cli(sb, ['profile', 'use', 'default'])).exitCode).toBe(0);
    expect((await cli(sb, ['profile', 'remove', 'srv'])).exitCode).toBe(0);
    expect((await cli(sb, ['config', 'unset', 'output_format'])).exitCode).toBe(0);
  });
});

describe('speakers', () => {
  it('lists as JSON, CSV and a plain table; follows pages with --all', async () => {
    const page = json((await cli(sb, ['speakers', 'list', '--json', '--limit', '5'], { env })).stdout);
    expect(page.items).toHaveLength(5);
    expect(page).toMatchObject({ limit: 5, offset: 0, has_more: true });
    const csv = await cli(sb, ['speakers', 'list', '--csv', '--limit', '3', '--gender', 'female'], { env });
    const rows = parse(csv.stdout, { columns: true }) as { id: string; gender: string }[];
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.gender === 'Female')).toBe(true);
    const table = await cli(sb, ['speakers', 'list', '--limit', '2'], { env });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+GENDER\s+REGION/);
    expect(table.stdout).not.toMatch(ANSI);
    const facets = json((await cli(sb, ['speakers', 'facets', '--json'], { env })).stdout) as unknown as { gender: { value: string; count: number }[] };
    const nb = facets.gender.find((g) => g.value === 'Non-binary')!;
    const all = await cli(sb, ['speakers', 'list', '--all', '--csv', '--gender', 'Non-binary'], { env });
    expect((parse(all.stdout, { columns: true }) as unknown[]).length).toBe(nb.count);
  });

  it('shows one speaker, and exits 4 for an unknown one', async () => {
    const id = (json((await cli(sb, ['speakers', 'list', '--json', '--limit', '1'], { env })).stdout).items[0] as { id: string }).id;
    expect(json((await cli(sb, ['speakers', 'show', id, '--json'], { env })).stdout)).toMatchObject({ id });
    const missing = await cli(sb, ['speakers', 'show', 'spk_nope'], { env });
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toContain('Speaker not found');
  });

  it('saves a sample, never over an existing file without --force', async () => {
    const id = (json((await cli(sb, ['speakers', 'list', '--json', '--limit', '1'], { env })).stdout).items[0] as { id: string }).id;
    const file = join(sb.root, 'sample.wav');
    const r = await cli(sb, ['speakers', 'sample', id, '-o', file], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(isWav(readFileSync(file))).toBe(true);
    expect((await cli(sb, ['speakers', 'sample', id, '-o', file], { env })).exitCode).toBe(2);
  });
});

describe('tts', () => {
  it('writes a WAV file, refuses to overwrite without --force, and reports on stderr', async () => {
    const file = join(sb.root, 'hi.wav');
    const r = await cli(sb, ['tts', 'say', 'Hello from the test', '-o', file], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(isWav(readFileSync(file))).toBe(true);
    expect(r.stderr).toMatch(/19 characters used/);
    writeFileSync(file, 'keep');
    const again = await cli(sb, ['tts', 'say', 'Hello', '-o', file], { env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('--force');
    expect(readFileSync(file, 'utf8')).toBe('keep');
    expect((await cli(sb, ['tts', 'say', 'Hello', '-o', file, '--force', '--sample-rate', '16000'], { env })).exitCode).toBe(0);
    const wav = readFileSync(file);
    expect(isWav(wav)).toBe(true);
    expect(wav.readUInt32LE(24)).toBe(16000);
  });

  it('writes the WAV to piped stdout, reading the text from stdin', async () => {
    const r = await cli(sb, ['tts', 'say', '-'], { env, input: 'piped text' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(isWav(r.raw)).toBe(true);
    const j = await cli(sb, ['tts', 'say', 'four', '--json', '-o', join(sb.root, 'four.wav')], { env });
    expect(json(j.stdout)).toMatchObject({ characters_used: 4 });
  });
});

describe('batch and jobs', () => {
  it('submits CSV, watches, downloads {index}.wav; status, list and the jobs alias work', async () => {
    const csvFile = join(sb.root, 'items.csv');
    writeFileSync(csvFile, 'text,speaker_id\nfirst line,\nsecond line,\n"third, quoted",\n');
    const dir = join(sb.root, 'batch-out');
    const r = await cli(sb, ['batch', 'submit', csvFile, '--download', dir, '--json'], { env, timeout: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const job = json(r.stdout) as unknown as { job_id: string; status: string; total_items: number };
    expect(job).toMatchObject({ status: 'completed', total_items: 3 });
    expect(readdirSync(dir).sort()).toEqual(['0.wav', '1.wav', '2.wav', 'manifest.csv']);
    expect(isWav(readFileSync(join(dir, '2.wav')))).toBe(true);
    expect(json((await cli(sb, ['jobs', 'status', job.job_id, '--json'], { env })).stdout)).toMatchObject({ job_id: job.job_id, progress: 100 });
    const list = await cli(sb, ['batch', 'list', '--csv', '--status', 'completed'], { env });
    expect((parse(list.stdout, { columns: true }) as { job_id: string }[]).map((x) => x.job_id)).toContain(job.job_id);
    expect((await cli(sb, ['batch', 'status', 'job_missing'], { env })).exitCode).toBe(4);
    const dl = join(sb.root, 'again');
    expect((await cli(sb, ['batch', 'download', job.job_id, dl], { env })).exitCode).toBe(0);
    expect(readdirSync(dl)).toHaveLength(4);
  }, 120_000);

  it('splits more than 100 JSONL items into several jobs', async () => {
    const file = join(sb.root, 'many.jsonl');
    writeFileSync(file, Array.from({ length: 101 }, (_, i) => JSON.stringify({ text: `n ${i}` })).join('\n') + '\n');
    const r = await cli(sb, ['batch', 'submit', file, '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const jobs = JSON.parse(r.stdout) as { total_items: number }[];
    expect(jobs.map((j) => j.total_items)).toEqual([100, 1]);
  });

  it('refuses an unknown speaker at submission with exit 4', async () => {
    const file = join(sb.root, 'bad.json');
    writeFileSync(file, JSON.stringify({ items: [{ text: 'fine', speaker_id: 'spk_does_not_exist' }] }));
    const r = await cli(sb, ['batch', 'submit', file, '--watch'], { env });
    // An unknown speaker is refused at submission (404) — a usage-level failure, not a job failure.
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('Speaker not found: spk_does_not_exist');
  });
});

describe('datasets', () => {
  it('reports every bad CSV line at once and uploads nothing', async () => {
    const file = join(sb.root, 'bad.csv');
    writeFileSync(file, `text,speaker_id\nok,\n,\n${'a'.repeat(2001)},\n  ,\n`);
    const r = await cli(sb, ['dataset', 'upload', file, '--name', 'bad'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Line 3: text must not be empty');
    expect(r.stderr).toContain('Line 4: Text exceeds maximum length of 2000 characters');
    expect(r.stderr).toContain('Line 5: text must not be empty');
    const list = json((await cli(sb, ['dataset', 'list', '--json'], { env })).stdout);
    expect(list.items.find((d) => d.name === 'bad')).toBeUndefined();
  });

  it('uploads with audio generation, watches, lists, shows and downloads with a manifest', async () => {
    const file = join(sb.root, 'ds.csv');
    writeFileSync(file, '\uFEFFtext,speaker_id\r\nalpha one,\r\nbeta two,\r\n');
    const up = await cli(sb, ['dataset', 'upload', file, '--name', 'greek', '--generate-audio', '--watch', '--json'], { env, timeout: 120_000 });
    expect(up.exitCode, up.stderr).toBe(0);
    const ds = json(up.stdout) as unknown as { dataset_id: string; row_count: number; job_id: string };
    expect(ds).toMatchObject({ row_count: 2, name: 'greek' });
    const list = parse((await cli(sb, ['dataset', 'list', '--csv'], { env })).stdout, { columns: true }) as { dataset_id: string }[];
    expect(list.map((d) => d.dataset_id)).toContain(ds.dataset_id);
    const shown = json((await cli(sb, ['dataset', 'show', ds.dataset_id, '--json'], { env })).stdout) as unknown as { rows: { audio_url?: string }[] };
    expect(shown.rows.every((r) => r.audio_url)).toBe(true);
    const dir = join(sb.root, 'ds-out');
    expect((await cli(sb, ['dataset', 'download', ds.dataset_id, dir], { env })).exitCode).toBe(0);
    const manifest = parse(readFileSync(join(dir, 'manifest.csv')), { columns: true }) as { text: string; file: string }[];
    expect(manifest.map((m) => m.text)).toEqual(['alpha one', 'beta two']);
    expect(isWav(readFileSync(join(dir, manifest[1]!.file)))).toBe(true);
    expect((await cli(sb, ['dataset', 'show', 'dst_missing'], { env })).exitCode).toBe(4);
  }, 120_000);
});

describe('stt', () => {
  it('computes accuracy offline, with the alignment', async () => {
    const r = await cli(sb, ['stt', 'accuracy', '--reference', 'the cat sat', '--hypothesis', 'the cat sad', '--json']);
    expect(json(r.stdout)).toMatchObject({ wer: 0.3333, substitutions: 1, reference_words: 3 });
    const del = await cli(sb, ['stt', 'accuracy', '-r', 'a b c', '-H', 'a c', '--alignment']);
    expect(del.stdout).toContain('- b');
    expect(del.stdout).not.toMatch(ANSI);
    const ins = await cli(sb, ['stt', 'accuracy', '-r', 'a c', '-H', 'a b c', '--alignment']);
    expect(ins.stdout).toContain('+ b');
    expect((await cli(sb, ['stt', 'accuracy', '-r', 'a b', '-H', 'a x', '--alignment'])).stdout).toContain('~ b → x');
    expect((await cli(sb, ['stt', 'accuracy', '-r', '...', '-H', 'x'])).exitCode).toBe(2);
  });

  it('uploads a local file and transcribes it; unconfigured providers report in their row', async () => {
    const r = await cli(sb, ['stt', 'transcribe', SPEECH, '--providers', 'local-sphinx,stt-b', '--json'], { env, timeout: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const res = json(r.stdout) as unknown as { results: Record<string, { transcript: string | null; error?: { code: string } }> };
    expect(Object.keys(res.results).sort()).toEqual(['local-sphinx', 'stt-b']);
    expect(res.results['stt-b']!.error?.code).toBe('provider_not_configured');
    const cmp = await cli(sb, ['stt', 'compare', SPEECH, '--providers', 'all', '--reference', 'hello world', '--csv'], { env, timeout: 120_000 });
    expect(cmp.exitCode, cmp.stderr).toBe(0);
    const rows = parse(cmp.stdout, { columns: true }) as { rank: string; provider: string; wer: string }[];
    expect(rows).toHaveLength(10);
    expect(rows[0]!.provider).toBe('local-sphinx');
    expect(rows[0]!.rank).toBe('1');
    expect(rows.find((x) => x.provider === 'stt-c')!.wer).toBe('');
  }, 120_000);
});

describe('keys, billing, doctor, completion, serve', () => {
  it('creates, lists and revokes a key', async () => {
    const created = await cli(sb, ['keys', 'create', '--name', 'ci', '--scope', 'read', '--json'], { env });
    const key = json(created.stdout) as unknown as { id: string; key: string; scope: string };
    expect(key.scope).toBe('read');
    const list = parse((await cli(sb, ['keys', 'list', '--csv'], { env })).stdout, { columns: true }) as { id: string }[];
    expect(list.map((k) => k.id)).toContain(key.id);
    expect((await cli(sb, ['keys', 'list'], { env })).stdout).not.toContain(key.key);
    const denied = await cli(sb, ['keys', 'create'], { env: { ...env, VOXCTL_API_KEY: key.key } });
    expect(denied.exitCode).toBe(3);
    expect((await cli(sb, ['keys', 'revoke', key.id], { env })).exitCode).toBe(0);
    expect((await cli(sb, ['keys', 'revoke', key.id], { env })).exitCode).toBe(4);
  });

  it('billing portal and subscription', async () => {
    const p = json((await cli(sb, ['billing', 'portal', '--json'], { env })).stdout) as unknown as { url: string };
    expect(p.url).toContain('/billing/portal/');
    expect(json((await cli(sb, ['billing', 'subscription', '--json'], { env })).stdout)).toMatchObject({ tier: 'pro', status: 'active' });
  });

  it('doctor, completion and serve status/logs', async () => {
    const d = await cli(sb, ['doctor', '--json'], { env });
    const report = json(d.stdout) as unknown as { checks: { check: string; status: string }[] };
    expect(report.checks.map((c) => c.check)).toEqual(expect.arrayContaining(['service version', 'pocketsphinx', 'keychain', 'data dir']));
    expect((await cli(sb, ['completion', 'bash'])).stdout).toContain('complete -o default -F _voxctl voxctl');
    expect((await cli(sb, ['completion', 'fish'])).stdout).toContain("-a 'speakers'");
    const st = await cli(sb, ['serve', 'status', '--json']);
    expect(json(st.stdout)).toMatchObject({ running: true, url: server.url });
    expect(existsSync(join(sb.dataDir, 'serve.log'))).toBe(true);
    expect((await cli(sb, ['serve', 'logs', '-n', '5'])).exitCode).toBe(0);
  });

  it('exits 5 with the reset time when rate limited', async () => {
    const created = await cli(sb, ['admin', 'users', 'create', '--email', 'free@example.com', '--tier', 'free', '--data-dir', sb.dataDir]);
    expect(created.exitCode, created.stderr).toBe(0);
    const freeEnv = { VOXCTL_BASE_URL: server.url, VOXCTL_API_KEY: created.stdout.trim() };
    let last = { exitCode: 0, stderr: '' };
    for (let i = 0; i < 45 && last.exitCode === 0; i++) last = await cli(sb, ['usage', '--json'], { env: freeEnv });
    expect(last.exitCode).toBe(5);
    expect(last.stderr).toContain('Rate limit exceeded');
    expect(last.stderr).toMatch(/resets at/);
  }, 120_000);
});
