import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { ApiRequestError, NetworkError } from '../../../src/client/errors.js';
import { chunk, failIfUnsuccessful, parseBatchInput } from '../../../src/cli/batch/batch.js';
import { validateDatasetCsv } from '../../../src/cli/dataset/csv.js';
import { exitCodeFor, buildProgram, loadCommandModules } from '../../../src/cli/program.js';
import { COMMAND_MODULES, modulesFor } from '../../../src/cli/command-groups.js';
import { createKeyStore, type KeychainBackend } from '../../../src/cli/core/keychain.js';
import { bashCompletion, commandTree, fishCompletion } from '../../../src/cli/completion/completion.js';
import { ALL_PROVIDERS } from '../../../src/shared/schemas/stt.js';
import { ALL_PROVIDERS as CLI_PROVIDERS } from '../../../src/cli/core/stt-providers.js';
import { CliError } from '../../../src/cli/core/errors.js';
import { testContext, unreachableKeychain } from '../../helpers/cli-context.js';

describe('exitCodeFor: the one error handler', () => {
  const now = new Date('2026-03-15T12:00:00Z');
  it.each([
    [401, 3],
    [403, 3],
    [404, 4],
    [429, 5],
    [400, 2],
    [413, 1],
    [500, 1],
  ])('API status %i → exit %i', (status, code) => {
    expect(exitCodeFor(new ApiRequestError({ status, detail: 'x' }), now).code).toBe(code);
  });

  it('adds hints: login on 401, the reset time on 429, the quota renewal date on quota', () => {
    expect(exitCodeFor(new ApiRequestError({ status: 401, detail: 'Invalid or expired API key', requestId: 'req_1' }), now).message).toBe(
      'Invalid or expired API key (request req_1)\nHint: run voxctl auth login',
    );
    const rl = exitCodeFor(new ApiRequestError({ status: 429, detail: 'Rate limit exceeded', retryAfter: 30, rateLimitReset: now.getTime() / 1000 + 30 }), now);
    expect(rl.message).toContain('retry in 30 s; the limit resets at 2026-03-15T12:00:30Z (in 30 s)');
    const q = exitCodeFor(new ApiRequestError({ status: 429, code: 'quota_exceeded', detail: 'Character quota exceeded for this billing period' }), now);
    expect(q.message).toContain('renews on 2026-04-01');
  });

  it('network errors name the target; commander errors are usage; CliErrors keep their code', () => {
    const n = exitCodeFor(new NetworkError('http://127.0.0.1:1', Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })));
    expect(n.code).toBe(1);
    expect(n.message).toContain('Cannot reach http://127.0.0.1:1: ECONNREFUSED');
    expect(n.message).toContain('voxctl serve status');
    expect(exitCodeFor(new CommanderError(1, 'commander.unknownOption', 'x')).code).toBe(2);
    expect(exitCodeFor(new CommanderError(0, 'commander.helpDisplayed', '')).code).toBe(0);
    expect(exitCodeFor(new CliError('bad', { exitCode: 6 })).code).toBe(6);
    expect(exitCodeFor(new Error('boom')).message).toBe('Unexpected error: boom');
  });
});

describe('batch input', () => {
  it('reads CSV (quoted, BOM, CRLF), JSONL and JSON in both shapes', async () => {
    expect(await parseBatchInput('\uFEFFtext,speaker_id\r\n"a, b",spk_1\r\nc,\r\n', 'x.csv')).toEqual([{ text: 'a, b', speaker_id: 'spk_1' }, { text: 'c' }]);
    expect(await parseBatchInput('{"text":"a"}\n\n{"text":"b","speaker_id":"s"}\n', 'x.jsonl')).toEqual([{ text: 'a' }, { text: 'b', speaker_id: 's' }]);
    expect(await parseBatchInput('{"items":[{"text":"a"}]}', 'x.json')).toEqual([{ text: 'a' }]);
    expect(await parseBatchInput('[{"text":"a"}]', '-')).toEqual([{ text: 'a' }]);
  });

  it('quotes the offending line', async () => {
    await expect(parseBatchInput('{"text":"a"}\n{oops}\n', 'x.jsonl')).rejects.toThrow('x.jsonl line 2: invalid JSON');
    await expect(parseBatchInput('speaker_id\ns\n', 'x.csv')).rejects.toThrow("missing required column 'text'");
    await expect(parseBatchInput('{"items":[{"txt":"a"}]}', 'x.json')).rejects.toThrow('x.json item 0: needs a string "text"');
  });

  it('a watched job ending failed or partial is exit 6, naming failed items', () => {
    const base = { progress: 100, total_items: 2, created_at: '2026-01-01T00:00:00Z' };
    expect(() => failIfUnsuccessful([{ ...base, job_id: 'job_a', status: 'completed', completed_items: 2, failed_items: 0 }])).not.toThrow();
    const partial = {
      ...base,
      job_id: 'job_b',
      status: 'partial' as const,
      completed_items: 1,
      failed_items: 1,
      results: [{ index: 1, speaker_id: 's', status: 'failed' as const, error: 'Speech synthesis failed' }],
    };
    let error: unknown;
    try {
      failIfUnsuccessful([partial]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(6);
    expect((error as CliError).message).toContain('job_b item 1: Speech synthesis failed');
  });

  it('splits into chunks of at most 100, remembering offsets', () => {
    const parts = chunk(Array.from({ length: 250 }, (_, i) => i));
    expect(parts.map((p) => [p.start, p.items.length])).toEqual([[0, 100], [100, 100], [200, 50]]);
  });
});

describe('dataset CSV validation', () => {
  it('reports every bad line with the service messages', async () => {
    const csv = Buffer.from(`text,speaker_id\nfine,\n,\n${'é'.repeat(2001)},\n"unterminated\n`);
    const { problems } = await validateDatasetCsv(csv);
    expect(problems).toContain('Line 3: text must not be empty');
    expect(problems).toContain('Line 4: Text exceeds maximum length of 2000 characters');
    expect(problems.some((p) => p.startsWith('Malformed CSV at line'))).toBe(true);
  });

  it('accepts exactly 2000 code points (not UTF-16 units) and rejects header or row problems', async () => {
    expect((await validateDatasetCsv(Buffer.from(`text\n${'𝐀'.repeat(2000)}\n`))).problems).toEqual([]);
    expect((await validateDatasetCsv(Buffer.from('speaker_id\nx\n'))).problems).toEqual(["CSV is missing required column 'text'"]);
    expect((await validateDatasetCsv(Buffer.from('text\n'))).problems).toEqual(['CSV has no data rows']);
  });
});

describe('key store', () => {
  it('falls back to a 0600 file when the keychain fails, and times out a hung keychain', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-ks-'));
    const hung: KeychainBackend = { getPassword: () => new Promise(() => {}), setPassword: () => new Promise(() => {}), deletePassword: () => new Promise(() => {}) };
    const store = createKeyStore({ configDir: dir, backend: hung, timeoutMs: 100 });
    const started = Date.now();
    const saved = await store.set('p', 'vox_secret');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(saved).toEqual({ storage: 'file', keychainError: 'no answer within 0.1 s' });
    expect(statSync(store.filePath).mode & 0o777).toBe(0o600);
    expect(await store.get('p')).toMatchObject({ key: 'vox_secret', storage: 'file' });
    expect((await store.delete('p')).removed).toBe(true);
    expect(readFileSync(store.filePath, 'utf8')).not.toContain('vox_secret');
  });

  it('prefers the keychain when it works, removing a stale file copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-ks-'));
    const file = createKeyStore({ configDir: dir, backend: unreachableKeychain });
    await file.set('p', 'old');
    const vault = new Map<string, string>();
    const working: KeychainBackend = {
      getPassword: async (p) => vault.get(p) ?? null,
      setPassword: async (p, k) => void vault.set(p, k),
      deletePassword: async (p) => vault.delete(p),
    };
    const store = createKeyStore({ configDir: dir, backend: working });
    expect(await store.set('p', 'new')).toEqual({ storage: 'keychain' });
    expect(await store.get('p')).toEqual({ key: 'new', storage: 'keychain' });
    expect(readFileSync(store.filePath, 'utf8')).not.toContain('old');
  });
});

describe('command modules loaded on demand', () => {
  it('loads only the module a command line names; --help, --version and typos need none; completion needs all', () => {
    expect(modulesFor(['speakers', 'list', '--json'])).toEqual(['speakers']);
    expect(modulesFor(['--profile', 'eval', '--base-url', 'http://x', 'tts', 'say', 'hi'])).toEqual(['tts']);
    expect(modulesFor(['jobs', 'list'])).toEqual(['batch']);
    expect(modulesFor(['whoami'])).toEqual(['usage']);
    expect(modulesFor(['help', 'eval'])).toEqual(['eval']);
    expect(modulesFor(['--help'])).toEqual([]);
    expect(modulesFor(['--version'])).toEqual([]);
    expect(modulesFor(['speakrs'])).toEqual([]);
    expect(modulesFor(['__complete', 'speakers'])).toBe('all');
    expect(modulesFor(['completion', 'bash'])).toBe('all');
  });

  it("lists every top-level command the same way loaded or not: the table's lines are the modules' own", async () => {
    const lines = (p: ReturnType<typeof buildProgram>) => p.commands.filter((c) => c.name() !== '__complete').map((c) => [c.name(), c.aliases(), c.description()]);
    const loaded = lines(buildProgram(testContext().ctx, { modules: await loadCommandModules('all') }));
    expect(lines(buildProgram(testContext().ctx))).toEqual(loaded);
    expect(loaded.map(([name]) => name)).toEqual(COMMAND_MODULES.flatMap((m) => m.commands.map((c) => c.name)).filter((n) => n !== '__complete'));
  });
});

describe('completion and constants', () => {
  it('completes every command group', async () => {
    const program = buildProgram(testContext().ctx, { modules: await loadCommandModules('all') });
    const bash = bashCompletion(program);
    for (const g of ['admin users create', 'auth', 'speakers', 'tts', 'batch', 'jobs', 'dataset', 'stt', 'serve', 'keys', 'billing']) expect(bash).toContain(g);
    expect(bash).toContain('"speakers list") words="');
    expect(fishCompletion(program)).toContain("__fish_seen_subcommand_from tts' -a 'say'");
  });

  it('every command has --help with examples', async () => {
    const leaves = commandTree(buildProgram(testContext().ctx, { modules: await loadCommandModules('all') })).filter((n) => n.subcommands.length === 0 && n.path[0] !== 'jobs');
    expect(leaves.length).toBeGreaterThan(40);
    for (const leaf of leaves) {
      if (leaf.path[0] === 'admin') continue; // owned and documented by the admin command's file
      const t = testContext();
      expect(await t.run([...leaf.path, '--help']), leaf.path.join(' ')).toBe(0);
      expect(t.stdout.text, leaf.path.join(' ')).toContain('Examples:');
    }
  });

  it('the CLI provider list mirrors the shared schema', () => {
    expect([...CLI_PROVIDERS]).toEqual([...ALL_PROVIDERS]);
  });
});
