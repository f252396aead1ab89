import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, createSandbox, type Sandbox } from '../helpers/cli.js';
import { fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fakeProvidersConfig } from '../helpers/evaluations.js';
import { entitySentences } from '../../src/shared/entities/index.js';

// `voxctl eval run --probe … --entities … --keyterms …`, the probe gates and `eval show`'s probes table
// (DESIGN §12.5) through the built CLI (run `npm run build` first), against a real service whose providers
// are loopback fakes: one that answers the same sentence to everything (it speaks on every clip), one
// that honours boosting.
type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let s: TestServer;
let sb: Sandbox;
let talker: FakeVendor;
let booster: FakeVendor;
let speaker: string;
const dir = mkdtempSync(join(tmpdir(), 'voxctl-cli-probes-'));
const run = (args: string[]) => cli(sb, args, { env: { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key }, timeout: 120_000 });
const base = () => ['eval', 'run', '--texts', 'prompts.txt', '--speaker', speaker, '--providers', 'stt-b,stt-d'];

beforeAll(async () => {
  talker = await startFakeVendor('openai');
  booster = await startFakeVendor('deepgram', { script: { term: 'Acme', without: 'call the acne office', with: 'call the Acme office' } });
  const configPath = fakeProvidersConfig(dir, {
    'stt-b': { adapter: 'openai', model: 'whisper-1', fake: talker },
    'stt-d': { adapter: 'deepgram', model: 'nova-3', fake: booster },
  });
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  speaker = await fliteSpeaker(s.runtime.db);
  sb = createSandbox();
  writeFileSync(join(sb.root, 'prompts.txt'), 'Call the Acme office.\n');
  writeFileSync(join(sb.root, 'terms.txt'), 'Acme\n\n');
});
afterAll(async () => {
  await s?.close();
  await Promise.all([talker?.close(), booster?.close()]);
  sb?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('voxctl eval run with probes', () => {
  let id: string;

  it('refuses malformed probe flags before anything starts (exit 2)', async () => {
    for (const [extra, message] of [
      [['--probe', 'music'], "--probe must be non-speech[:clips[:seconds]], got 'music'"],
      [['--probe', 'non-speech:500'], '--probe: non-speech clips must be 1..200, got 500'],
      [['--entities', 'zip'], '--entities takes digits, phone, number, money, date, time, email, code, got'],
      [['--per-type', '3'], '--per-type applies to --entities'],
      [['--max-hallucination', '0.1'], '--max-hallucination needs --probe non-speech'],
      [['--entities', 'digits', '--min-entity-accuracy', '2'], "--min-entity-accuracy must be a number from 0 to 1 (0.05 = 5%), got '2'"],
    ] as const) {
      const r = await run([...base(), ...extra]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });

  it('--dry-run counts the probes: entity sentences charged like texts, clips once per provider and free', async () => {
    const r = await run([...base(), '--probe', 'non-speech:3:1', '--entities', 'digits', '--per-type', '2', '--dry-run', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as Row;
    const sentences = entitySentences(['digits'], 2, 0).map((x) => x.text);
    expect(d).toMatchObject({ texts: 3, utterances: 3 * 2 + 3 * 2, characters: ['Call the Acme office.', ...sentences].reduce((n, t) => n + [...t].length, 0) });
  });

  it('runs every probe; the hallucination and entity gates exit 7 naming what failed', async () => {
    const r = await run([
      ...base(),
      '--probe', 'non-speech:3:1',
      '--entities', 'digits,money',
      '--per-type', '1',
      '--keyterms', 'terms.txt',
      '--max-hallucination', '0.5',
      '--min-entity-accuracy', '0.9',
      '--junit', 'probes.xml',
    ]);
    expect(r.exitCode, r.stderr).toBe(7);
    // (1 text + 2 entity sentences) × 2 providers + 3 clips × 2 providers.
    id = /^(ev_\S+): 12 utterances$/m.exec(r.stderr)![1]!;
    expect(r.stderr).toContain('stt-b: hallucination rate 1.0000 on non-speech exceeds --max-hallucination 0.5');
    expect(r.stderr).toContain('stt-b under clean: digits accuracy 0.0000 is below --min-entity-accuracy 0.9');
    expect(r.stdout).toContain('Probes (condition clean, all speakers):');
    expect(r.stdout).toMatch(/HALLUCINATION/);
  });

  it('eval show prints the probes table; --json carries the probes and their figures', async () => {
    const shown = await run(['eval', 'show', id]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/stt-d · deepgram nova-3 .*0\.0% → 100\.0% of 1/);
    const json = JSON.parse((await run(['eval', 'show', id, '--json'])).stdout) as Row;
    expect(json.probes).toEqual({ non_speech: { clips: 3, seconds: 1, kinds: ['silence', 'noise', 'hum', 'tone', 'dtmf'] }, entities: { types: ['digits', 'money'], per_type: 1 }, keyterms: { terms: ['Acme'] } });
    const d = json.summary.find((x: Row) => x.provider === 'stt-d' && x.group === 'all');
    expect(d.keyterms).toMatchObject({ occurrences: 1, recall_without: 0, recall_with: 1 });
    const ok = await run(['eval', 'show', id, '--max-hallucination', '1']);
    expect(ok.exitCode, ok.stderr).toBe(0);
  });
});
