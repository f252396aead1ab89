import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav } from '../../src/server/audio/wav.js';
import { execa } from 'execa';
import { BIN, cli, createSandbox, serveDetached, stripAnsi, type Sandbox, type ServedCli } from '../helpers/cli.js';
import { startFakeDeepgramLive, type FakeStreamingVendor } from '../helpers/fake-stt-streaming.js';
import { toneBurst } from '../helpers/streaming-audio.js';

// `voxctl stt stream` (DESIGN §13.3): the BUILT bin against a detached server bound to a Deepgram live fake.
let sb: Sandbox;
let server: ServedCli | undefined;
let dg: FakeStreamingVendor;
let env: Record<string, string>;
let file: string;

beforeAll(async () => {
  dg = await startFakeDeepgramLive({
    script: [
      { afterAudioMs: 300, delayMs: 50, kind: 'partial', text: 'please' },
      { afterAudioMs: 600, delayMs: 50, kind: 'partial', text: 'please fall' },
      { afterAudioMs: 800, delayMs: 50, kind: 'partial', text: 'please call' },
      { afterAudioMs: 1000, delayMs: 120, kind: 'final', text: 'Please call me.' },
      { afterAudioMs: 'end', delayMs: 0, kind: 'final', text: '' },
    ],
  });
  sb = createSandbox({ VOXCTL_TEST_DG_LIVE_KEY: dg.key });
  mkdirSync(sb.dataDir, { recursive: true });
  writeFileSync(
    join(sb.dataDir, 'voxctl.config.json'),
    JSON.stringify({ stt: { providers: { 'stt-b': { adapter: 'deepgram', base_url: dg.url, api_key_env: 'VOXCTL_TEST_DG_LIVE_KEY' }, 'stt-c': { adapter: 'openai', base_url: dg.url } } } }),
  );
  const audio = toneBurst({ leadMs: 200, speechMs: 800, tailMs: 200 });
  file = join(sb.root, 'burst.wav');
  writeFileSync(file, encodeWav(audio.pcm, audio.sampleRate));
  server = await serveDetached(sb);
  env = { VOXCTL_BASE_URL: server.url, VOXCTL_API_KEY: server.key };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await dg?.close();
  sb?.cleanup();
});

describe('stt stream', () => {
  it('--json prints the events as they come, the last one with every result', async () => {
    const r = await cli(sb, ['stt', 'stream', file, '-p', 'stt-b', '--pace', '2', '--json'], { env, timeout: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string; provider?: string; text?: string; results?: Record<string, { transcript: string; revisions: number; final_latency_ms: number }> });
    expect(events[0]).toMatchObject({ event: 'start', providers: ['stt-b'], pace: 2, end_of_speech_ms: 1000 });
    expect(events.filter((e) => e.event === 'partial').map((e) => e.text)).toEqual(['please', 'please fall', 'please call']);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.results!['stt-b']).toMatchObject({ transcript: 'Please call me.', revisions: 1, early_words: 0 });
    expect(done.results!['stt-b']!.final_latency_ms).toBeGreaterThanOrEqual(110);
    expect(dg.violations).toEqual([]);
  });

  it('prints the comparison table with the latency columns (and WER with a reference)', async () => {
    const r = await cli(sb, ['stt', 'stream', file, '-p', 'stt-b', '--pace', '4', '-r', 'please call me'], { env, timeout: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const [header, row] = r.stdout.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual(['WER', 'CER', 'PROVIDER', 'FIRST_PARTIAL_MS', 'FINAL_LATENCY_MS', 'REVISIONS', 'EARLY_WORDS', 'TRANSCRIPT', '/', 'ERROR']);
    expect(row).toMatch(/^0\.0000\s+0\.0000\s+stt-b\s+\d+\s+\d+\s+1\s+0\s+Please call me\.$/);
  });

  it('refuses a provider that does not stream (exit 2) and a pace out of range before any request', async () => {
    const r = await cli(sb, ['stt', 'stream', file, '-p', 'stt-c'], { env, timeout: 60_000 });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Provider does not stream: stt-c');
    const pace = await cli(sb, ['stt', 'stream', file, '-p', 'stt-b', '--pace', '9'], { env: { VOXCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expect(pace.exitCode).toBe(2);
    expect(pace.stderr).toContain('--pace must be a number from 0.5 to 4');
  });

  it('on a terminal: a live line per provider, then the table', async () => {
    // A real pseudo-terminal: tmux runs the CLI, capture-pane reads the screen (as test/cli/interactive).
    const name = `voxctl-stream-${process.pid}`;
    const exports = Object.entries({ ...sb.env, ...env, TERM: 'xterm-256color' }).map(([k, v]) => `${k}='${v}'`).join(' ');
    try {
      await execa('tmux', ['new-session', '-d', '-s', name, '-x', '160', '-y', '40', `env -i ${exports} "${process.execPath}" "${BIN}" stt stream "${file}" -p stt-b,local-sphinx --pace 2; echo "EXIT=$?"; sleep 60`]);
      let screen = '';
      for (const end = Date.now() + 45_000; Date.now() < end && !/EXIT=\d+/.test(screen); await new Promise((r) => setTimeout(r, 200))) {
        screen = stripAnsi((await execa('tmux', ['capture-pane', '-p', '-t', name])).stdout);
      }
      expect(screen).toContain('EXIT=0');
      // The live block: one line per provider, its status mark and what it recognised.
      expect(screen).toMatch(/^stt-b\s+✓ Please call me\.$/m);
      expect(screen).toMatch(/^local-sphinx\s+✓/m);
      // Then the table with the latency columns.
      expect(screen).toMatch(/first_partial_ms.*final_latency_ms.*revisions.*early_words/);
    } finally {
      await execa('tmux', ['kill-session', '-t', name], { reject: false });
    }
  }, 60_000);

  it('exits 1 when every provider failed', async () => {
    const saved = dg.key;
    dg.key = 'rotated';
    try {
      const r = await cli(sb, ['stt', 'stream', file, '-p', 'stt-b', '--pace', '4'], { env, timeout: 60_000 });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/upstream_error: Deepgram rejected the credentials \(HTTP 401\)/);
      expect(r.stderr).toContain('Every requested provider failed (stt-b: upstream_error)');
    } finally {
      dg.key = saved;
    }
  });
});
