import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, createSandbox, serveDetached, type Sandbox, type ServedCli } from '../helpers/cli.js';
import { startFakeVendor, type FakeVendor, type KeytermScript } from '../helpers/fake-stt-vendors.js';

// `--keyterm` on `stt transcribe` and `stt compare` (DESIGN §12.5): the BUILT bin against a detached
// server whose config binds stt-b to a loopback Deepgram fake that honours boosting; local-sphinx has none.
const SPEECH = join(import.meta.dirname, '../../fixtures/speech-slt.wav');
const SCRIPT: KeytermScript = { term: 'Kubernetes', without: 'Deploy it on cooper netties today.', with: 'Deploy it on Kubernetes today.' };
const json = (s: string) => JSON.parse(s) as Record<string, unknown>;

let sb: Sandbox;
let server: ServedCli | undefined;
let deepgram: FakeVendor;
let env: Record<string, string>;

beforeAll(async () => {
  deepgram = await startFakeVendor('deepgram', { script: SCRIPT });
  // The detached server inherits the sandbox environment, where the key variable lives.
  sb = createSandbox({ VOXCTL_KT_DEEPGRAM: deepgram.key });
  mkdirSync(sb.dataDir, { recursive: true });
  writeFileSync(join(sb.dataDir, 'voxctl.config.json'), JSON.stringify({ stt: { providers: { 'stt-b': { adapter: 'deepgram', base_url: deepgram.url, api_key_env: 'VOXCTL_KT_DEEPGRAM' } } } }));
  server = await serveDetached(sb);
  env = { VOXCTL_BASE_URL: server.url, VOXCTL_API_KEY: server.key };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await deepgram?.close();
  sb?.cleanup();
});

describe('stt transcribe --keyterm', () => {
  it('refuses a term outside the rule with exit 2 before any request', async () => {
    const r = await cli(sb, ['stt', 'transcribe', SPEECH, '-p', 'stt-b', '--keyterm', 'ok', 'x'.repeat(51)], { env: { VOXCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Keyterm 1 must be 1..50 characters');
  });

  it('passes the terms to each provider; the table says which applied them', async () => {
    const before = deepgram.keyterms.length;
    const r = await cli(sb, ['stt', 'transcribe', SPEECH, '-p', 'stt-b,local-sphinx', '--keyterm', 'Kubernetes', 'Grafana Loki', '--json'], { env, timeout: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const results = json(r.stdout).results as Record<string, { transcript: string; keyterms?: string }>;
    expect(results['stt-b']).toMatchObject({ transcript: SCRIPT.with, keyterms: 'applied' });
    expect(results['local-sphinx']).toMatchObject({ keyterms: 'unsupported' });
    expect(results['local-sphinx']!.transcript.length).toBeGreaterThan(0);
    expect(deepgram.keyterms.slice(before)).toEqual([['Kubernetes', 'Grafana Loki']]);
    expect(deepgram.violations).toEqual([]);

    const table = await cli(sb, ['stt', 'transcribe', SPEECH, '-p', 'stt-b,local-sphinx', '--keyterm', 'Kubernetes'], { env, timeout: 120_000 });
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/KEYTERMS/);
    expect(table.stdout).toMatch(/stt-b.*applied/);
    expect(table.stdout).toMatch(/local-sphinx.*unsupported/);
  });

  it('without --keyterm nothing is boosted and there is no keyterms column', async () => {
    const r = await cli(sb, ['stt', 'transcribe', SPEECH, '-p', 'stt-b'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(SCRIPT.without);
    expect(r.stdout).not.toMatch(/KEYTERMS/i);
    expect(deepgram.keyterms.at(-1)).toEqual([]);
  });
});

describe('stt compare --keyterm', () => {
  it('repeated flags boost the provider, which then ranks first with WER 0', async () => {
    const r = await cli(sb, ['stt', 'compare', SPEECH, '-p', 'stt-b', '-r', SCRIPT.with, '--keyterm', 'Kubernetes', '--keyterm', 'Grafana', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const [first] = json(r.stdout).results as { provider: string; keyterms: string; accuracy: { wer: number } }[];
    expect(first).toMatchObject({ provider: 'stt-b', keyterms: 'applied', accuracy: { wer: 0 } });
    expect(deepgram.keyterms.at(-1)).toEqual(['Kubernetes', 'Grafana']);

    const plain = await cli(sb, ['stt', 'compare', SPEECH, '-p', 'stt-b', '-r', SCRIPT.with, '--json'], { env });
    expect((json(plain.stdout).results as { accuracy: { wer: number } }[])[0]!.accuracy.wer).toBeGreaterThan(0);
  });
});
