import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { closeTestDispatcher, testContext } from '../../helpers/cli-context.js';
import { ANSI, stripAnsi } from '../../helpers/cli.js';

// In-process: the real program, parseAsync with an injected context, against the real app on loopback.
let server: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  env = { VOXCTL_BASE_URL: server.url, VOXCTL_API_KEY: server.key };
});
afterAll(async () => {
  await closeTestDispatcher();
  await server?.close();
});

describe('auth (in-process)', () => {
  it('prompts for the key on a terminal, validates it, stores it in the fallback file with a warning', async () => {
    const t = testContext({ env: { VOXCTL_BASE_URL: server.url }, tty: true, answers: { password: [server.key] } });
    expect(await t.run(['auth', 'login'])).toBe(0);
    expect(t.asked[0]).toContain(server.url);
    expect(stripAnsi(t.stderr.text)).toMatch(/Warning: keychain unreachable \(no keychain in this test\); key stored in .*credentials\.json \(mode 0600\)/);
    const file = join(t.configDir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(t.stdout.text).not.toContain(server.key);
    expect(await t.run(['whoami', '--json'])).toBe(0);
    expect(JSON.parse(t.stdout.text)).toMatchObject({ email: 'admin@localhost' });
  });

  it('reports "key rejected" apart from "keychain unreachable" in auth status', async () => {
    const t = testContext({ env: { VOXCTL_BASE_URL: server.url, VOXCTL_API_KEY: 'vox_' + 'z'.repeat(40) } });
    expect(await t.run(['auth', 'status'])).toBe(3);
    expect(t.stdout.text).toContain('key rejected by the server');
    expect(t.stdout.text).toMatch(/Key\s+from VOXCTL_API_KEY/);
    const none = testContext({ env: { VOXCTL_BASE_URL: server.url } });
    expect(await none.run(['auth', 'status'])).toBe(3);
    expect(none.stdout.text).toContain('unreachable (no keychain in this test)');
    expect(none.stderr.text).toContain('run voxctl auth login');
  });
});

describe('output (in-process)', () => {
  it('draws a boxed table with colours on a terminal and plain columns when piped; NO_COLOR wins', async () => {
    const tty = testContext({ env, tty: true });
    expect(await tty.run(['speakers', 'list', '--limit', '2'])).toBe(0);
    expect(tty.stdout.text).toContain('┌');
    expect(tty.stdout.text).toMatch(ANSI);
    const noColor = testContext({ env: { ...env, NO_COLOR: '1' }, tty: true });
    expect(await noColor.run(['speakers', 'list', '--limit', '2'])).toBe(0);
    expect(noColor.stdout.text).toContain('┌');
    expect(noColor.stdout.text).not.toMatch(ANSI);
    const piped = testContext({ env });
    expect(await piped.run(['speakers', 'list', '--limit', '2'])).toBe(0);
    expect(piped.stdout.text).not.toContain('┌');
    expect(piped.stdout.text.trim().split('\n')).toHaveLength(3);
  });

  it('shows the usage bar only on a terminal', async () => {
    const tty = testContext({ env, tty: true });
    expect(await tty.run(['usage'])).toBe(0);
    expect(tty.stdout.text).toContain('░');
    const piped = testContext({ env });
    expect(await piped.run(['usage'])).toBe(0);
    expect(piped.stdout.text).not.toContain('░');
  });

  it('--quiet silences info messages but not the result', async () => {
    const t = testContext({ env });
    expect(await t.run(['speakers', 'list', '--limit', '1', '--quiet'])).toBe(0);
    expect(t.stderr.text).toBe('');
    expect(t.stdout.text).toContain('ID');
  });
});

describe('speakers pick (in-process)', () => {
  it('turns words of the search into filters and prints the chosen id', async () => {
    const t = testContext({ env, tty: true, answers: { search: [{ term: 'female' }] } });
    expect(await t.run(['speakers', 'pick'])).toBe(0);
    const id = t.stdout.text.trim();
    const check = testContext({ env });
    expect(await check.run(['speakers', 'show', id, '--json'])).toBe(0);
    expect(JSON.parse(check.stdout.text)).toMatchObject({ id, gender: 'Female' });
  });

  it('is a usage error without a terminal', async () => {
    const t = testContext({ env });
    expect(await t.run(['speakers', 'pick'])).toBe(2);
  });
});

describe('tts say (in-process)', () => {
  it('plays on a terminal, and saves to a temp file when no player exists', async () => {
    const played: string[] = [];
    const t = testContext({ env, tty: true, played });
    expect(await t.run(['tts', 'say', 'hello'])).toBe(0);
    expect(played).toHaveLength(1);
    expect(readFileSync(played[0]!).subarray(0, 4).toString()).toBe('RIFF');
    expect(t.stdout.bytes.subarray(0, 4).toString()).not.toBe('RIFF');
    const none = testContext({ env, tty: true });
    expect(await none.run(['tts', 'say', 'hello'])).toBe(0);
    const saved = /saved in (\S+\.wav)/.exec(none.stderr.text)?.[1];
    expect(saved && existsSync(saved)).toBe(true);
  });

  it('never clobbers an existing file and checks before spending characters', async () => {
    const t = testContext({ env });
    const file = join(t.configDir, 'keep.wav');
    writeFileSync(file, 'keep');
    expect(await t.run(['tts', 'say', 'hello', '-o', file])).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('keep');
  });
});

describe('config (in-process)', () => {
  it('uses the configured default speaker', async () => {
    const t = testContext({ env });
    expect(await t.run(['speakers', 'list', '--json', '--limit', '1', '--offset', '7'])).toBe(0);
    const id = JSON.parse(t.stdout.text).items[0].id as string;
    expect(await t.run(['config', 'set', 'speaker', id])).toBe(0);
    const out = join(t.configDir, 'x.wav');
    expect(await t.run(['tts', 'say', 'hi', '-o', out])).toBe(0);
    expect(t.stderr.text).toContain(`speaker ${id}`);
  });
});

describe('batch watch and version check (in-process)', () => {
  it('draws one progress bar per job on a terminal and saves {index}.wav', async () => {
    const t = testContext({ env, tty: true });
    const file = join(t.configDir, 'items.jsonl');
    writeFileSync(file, '{"text":"one"}\n{"text":"two"}\n');
    const dir = join(t.configDir, 'wavs');
    expect(await t.run(['batch', 'submit', file, '--download', dir])).toBe(0);
    expect(t.stderr.text).toContain('█');
    expect(stripAnsi(t.stderr.text)).toMatch(/job_\S+\s+█+\s+100%\s+completed\s+2\/2/);
    expect(existsSync(join(dir, '0.wav')) && existsSync(join(dir, '1.wav'))).toBe(true);
  });

  it('warns once per hour when the service runs another version', async () => {
    let healthCalls = 0;
    const other = createServer((req, res) => {
      if (req.url === '/health') healthCalls++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'ok', version: '0.0.1', uptime_seconds: 1, checks: { database: 'ok', tts: 'ok', stt: {} } }));
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    const t = testContext({ env: { VOXCTL_BASE_URL: url } });
    expect(await t.run(['health', '--json'])).toBe(0);
    expect(t.stderr.text).toContain(`the service at ${url} runs voxctl 0.0.1`);
    const calls = healthCalls;
    expect(await t.run(['health', '--json'])).toBe(0);
    // The second run asks /health once (the command itself) and warns from the cache.
    expect(healthCalls).toBe(calls + 1);
    expect(t.stderr.text.match(/runs voxctl 0\.0\.1/g)).toHaveLength(2);
    await closeTestDispatcher();
    await new Promise((r) => other.close(r));
  });
});
