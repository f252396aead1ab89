import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { cli, createSandbox, type Sandbox } from '../helpers/cli.js';
import { fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { startFakeDeepgramLive, type FakeStreamingVendor } from '../helpers/fake-stt-streaming.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fakeProvidersConfig } from '../helpers/evaluations.js';

// `voxctl eval run --mode streaming --pace --max-final-latency` and `eval show` of a streaming evaluation
// (DESIGN §13.2) through the built CLI (run `npm run build` first), against a real service whose Deepgram
// binding is a loopback fake of the live API answering its final result 300 ms after the stream ends.
type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TEXT = 'Turn left at the second traffic light.';
let s: TestServer;
let sb: Sandbox;
let dg: FakeStreamingVendor;
let openai: FakeVendor;
let speaker: string;
const dir = mkdtempSync(join(tmpdir(), 'voxctl-cli-stream-eval-'));
const run = (args: string[]) => cli(sb, args, { env: { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key }, timeout: 120_000 });

beforeAll(async () => {
  dg = await startFakeDeepgramLive({ script: [{ afterAudioMs: 'end', delayMs: 300, kind: 'final', text: TEXT }] });
  openai = await startFakeVendor('openai');
  const configPath = fakeProvidersConfig(dir, {
    'stt-b': { adapter: 'deepgram', model: 'nova-3', fake: dg },
    'stt-c': { adapter: 'openai', model: 'whisper-1', fake: openai },
  });
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  speaker = await fliteSpeaker(s.runtime.db);
  sb = createSandbox();
  writeFileSync(join(sb.root, 'prompts.txt'), `${TEXT}\n`);
});
afterAll(async () => {
  await s?.close();
  await Promise.all([dg?.close(), openai?.close()]);
  sb?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('voxctl eval run --mode streaming', () => {
  let id: string;

  it('refuses what only streaming takes, and a provider that does not stream, before anything starts', async () => {
    const base = ['eval', 'run', '--texts', 'prompts.txt', '--speaker', speaker, '--providers', 'stt-b'];
    for (const [extra, message] of [
      [['--pace', '2'], '--pace applies to --mode streaming'],
      [['--max-final-latency', '500'], '--max-final-latency applies to --mode streaming'],
      [['--mode', 'live'], "--mode must be batch or streaming, got 'live'"],
      [['--mode', 'streaming', '--pace', '9'], '--pace must be a number from 0.5 to 4 (1 = real time)'],
      [['--mode', 'streaming', '--max-final-latency', 'soon'], "--max-final-latency must be whole milliseconds ≥ 1 (e.g. 800), got 'soon'"],
    ] as const) {
      const r = await run([...base, ...extra]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
    }
    const r = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', speaker, '--providers', 'stt-b,stt-c', '--mode', 'streaming']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Provider does not stream: stt-c');
    expect(dg.streams).toHaveLength(0);
  });

  it('gates on the p95 of final latency: exit 7 naming the row, the JUnit case failed, the latency columns shown', async () => {
    const r = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', speaker, '--providers', 'stt-b', '--mode', 'streaming', '--max-final-latency', '50', '--junit', 'latency.xml']);
    expect(r.exitCode, r.stderr).toBe(7);
    id = /^(ev_\S+): 1 utterances$/m.exec(r.stderr)![1]!;
    expect(r.stderr).toMatch(/1 provider\/condition row\(s\) exceed --max-final-latency 50 ms:\n {2}stt-b under clean: final latency p95 \d+ ms exceeds --max-final-latency 50 ms/);
    expect(r.stdout).toContain('streaming at pace 1');
    expect(r.stdout).toMatch(/FINAL_P50_MS +FINAL_P95_MS +FINAL_P99_MS/);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase'].includes(n) }).parse(readFileSync(join(sb.root, 'latency.xml'), 'utf8')) as Row;
    const testcase = xml.testsuites.testsuite[0].testcase[0];
    expect(testcase.failure.type).toBe('max-final-latency');
  });

  it('eval show --max-final-latency passes a generous bound, and --json carries the figures', async () => {
    const ok = await run(['eval', 'show', id, '--max-final-latency', '30000']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    const json = await run(['eval', 'show', id, '--json']);
    const ev = JSON.parse(json.stdout) as Row;
    expect(ev).toMatchObject({ mode: 'streaming', pace: 1 });
    const row = ev.summary.find((x: Row) => x.group === 'all');
    // The fake answered 300 ms after the stream ended, which is after the end of speech.
    expect(row.final_latency_ms.p95).toBeGreaterThanOrEqual(290);
    const u = await run(['eval', 'utterances', id, '--csv']);
    expect(u.stdout.split('\n')[0]).toContain('final_latency_ms');
  });

  it('a batch evaluation cannot be gated on latency', async () => {
    const b = await run(['eval', 'run', '--texts', 'prompts.txt', '--speaker', speaker, '--providers', 'stt-c', '--watch']);
    expect(b.exitCode, b.stderr).toBe(0);
    const batch = /^(ev_\S+): 1 utterances$/m.exec(b.stderr)![1]!;
    const r = await run(['eval', 'show', batch, '--max-final-latency', '500']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${batch} is a batch evaluation: --max-final-latency gates a streaming one`);
  });
});
