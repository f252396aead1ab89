// Warm pocketsphinx_batch decoders: one process hears many utterances and each answer is what a fresh
// one gives; a timeout, a cancellation or a death costs one decoder, never a wrong answer; idle ones exit,
// and none outlives its server.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, test } from 'vitest';
import { decodeAudio } from '../../../../../src/server/audio/decode.js';
import { resamplePcm16 } from '../../../../../src/server/audio/resample.js';
import { batchBinaryBeside, resolveSphinx, type Resolved } from '../../../../../src/server/engines/stt/local-sphinx.js';
import { createSphinxDecoders, parseBatchOutput, type BatchCommand } from '../../../../../src/server/engines/stt/sphinx-decoders.js';
import { SttError } from '../../../../../src/server/engines/stt/types.js';
import { until } from '../../../../helpers/until.js';

const resolved = resolveSphinx() as Resolved;
const cmd: BatchCommand = { batch: batchBinaryBeside(resolved)!, hmm: resolved.hmm, lm: resolved.lm, dict: resolved.dict };
const TESTDATA = '/usr/share/pocketsphinx/test/data';

async function pcmOf(file: string): Promise<Int16Array> {
  const d = await decodeAudio(readFileSync(file));
  return resamplePcm16(d.pcm, d.sampleRate, 16000);
}

/** pids of pocketsphinx_batch processes whose parent is `parent`. */
function decodersOf(parent = process.pid): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(parent), 'pocketsphinx_ba'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

const folders = () => readdirSync(tmpdir()).filter((n) => n.startsWith('voxctl-sphinx-batch-'));
const request = (pcm: Int16Array, timeoutMs = 60_000, signal = new AbortController().signal) => ({ pcm, timeoutMs, signal });

describe('parseBatchOutput', () => {
  test("takes the utterance's hypothesis and the mean posterior of its real words, not another utterance's lines", () => {
    const lines = ['go forward (u1 -7095)', 'u1 1 0.46 0.17 go 0.5', 'u1 1 0.64 0.52 [NOISE] 0.1', 'u1 1 1.17 0.35 forward 0.9', ' (s1 -100)', 's1 1 0.0 0.1 uh 0.2'];
    const out = parseBatchOutput(lines, 'u1')!;
    expect(out.transcript).toBe('go forward');
    expect(out.confidence).toBeCloseTo(0.7, 10);
    expect(parseBatchOutput(lines, 's1')).toEqual({ transcript: '', confidence: 0.2 });
    expect(parseBatchOutput(lines, 'u2')).toBeUndefined();
    expect(parseBatchOutput([' (u3 0)'], 'u3')).toEqual({ transcript: '', confidence: null });
  });
});

describe('warm decoders', () => {
  test('one process hears utterance after utterance, and an answer does not depend on what it heard before', async () => {
    // goforward.raw is headerless: 16 kHz mono PCM16 as it is.
    const raw = readFileSync(`${TESTDATA}/goforward.raw`);
    const go = new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    const cards = await pcmOf(`${TESTDATA}/cards/005.wav`);
    const fresh = createSphinxDecoders(cmd);
    const cardsFirst = await fresh.decode(request(cards));
    await fresh.close();

    const decoders = createSphinxDecoders(cmd);
    const first = await decoders.decode(request(go));
    const pids = decodersOf();
    const [second, third] = [await decoders.decode(request(cards)), await decoders.decode(request(go))];
    expect(first.transcript).toBe('go forward ten meters');
    expect(first.confidence).toBeGreaterThan(0.3);
    expect(third).toEqual(first);
    expect(second).toEqual(cardsFirst);
    expect(second.transcript).toBe('eight of spades four of clubs seven of hearts');
    expect(decodersOf()).toEqual(pids);
    expect(pids).toHaveLength(1);
    await decoders.close();
    expect(decodersOf()).toEqual([]);
  });

  test('a timeout or a cancellation kills that decoder and says timeout; the next utterance gets a new one', async () => {
    const cards = await pcmOf(`${TESTDATA}/cards/005.wav`);
    const decoders = createSphinxDecoders(cmd);
    const expected = await decoders.decode(request(cards));
    const [before] = decodersOf();
    const late = await decoders.decode(request(cards, 1)).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(SttError);
    expect(late).toMatchObject({ code: 'timeout', message: 'PocketSphinx did not finish in time' });
    await until(() => !decodersOf().includes(before!));
    const controller = new AbortController();
    const cancelled = decoders.decode(request(cards, 60_000, controller.signal)).catch((e: unknown) => e);
    controller.abort();
    expect(await cancelled).toMatchObject({ code: 'timeout' });
    expect(await decoders.decode(request(cards))).toEqual(expected);
    await decoders.close();
  });

  test('a decoder killed while idle is replaced, and its folder is gone', async () => {
    const cards = await pcmOf(`${TESTDATA}/cards/001.wav`);
    const decoders = createSphinxDecoders(cmd);
    const expected = await decoders.decode(request(cards));
    const [pid] = decodersOf();
    const before = folders();
    process.kill(pid!, 'SIGKILL');
    await until(() => folders().length === before.length - 1);
    expect(await decoders.decode(request(cards))).toEqual(expected);
    expect(decodersOf()).not.toContain(pid);
    await decoders.close();
  });

  test('an idle decoder exits after idleMs and does not keep the process alive', async () => {
    const decoders = createSphinxDecoders(cmd, { idleMs: 200 });
    await decoders.decode(request(await pcmOf(`${TESTDATA}/cards/002.wav`)));
    expect(decodersOf()).toHaveLength(1);
    await until(() => decodersOf().length === 0);
    await decoders.close();
  });

  test('a missing program is provider_unavailable', async () => {
    const err = await createSphinxDecoders({ ...cmd, batch: '/nonexistent/pocketsphinx_batch' })
      .decode(request(new Int16Array(1600)))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SttError);
    expect(err).toMatchObject({ code: 'provider_unavailable' });
    expect((err as Error).message).toMatch(/^PocketSphinx failed: /);
  });

  test('a script that decodes and closes exits when done: close waits for the idle decoder it let go of', async () => {
    const script = `
      const { createSphinxDecoders } = await import(${JSON.stringify(new URL('../../../../../dist/server/engines/stt/sphinx-decoders.js', import.meta.url).href)});
      const d = createSphinxDecoders(${JSON.stringify(cmd)});
      await d.decode({ pcm: new Int16Array(16000), timeoutMs: 60000, signal: new AbortController().signal });
      await d.close();
      console.log('closed');
    `;
    const { execFileSync: run } = await import('node:child_process');
    // Exit code 13 (a top-level await never settled) would throw here.
    expect(run(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })).toBe('closed\n');
  });

  test('no decoder outlives a server killed with SIGKILL', async () => {
    const script = `
      const { createSphinxDecoders } = await import(${JSON.stringify(new URL('../../../../../dist/server/engines/stt/sphinx-decoders.js', import.meta.url).href)});
      const d = createSphinxDecoders(${JSON.stringify(cmd)});
      await d.decode({ pcm: new Int16Array(16000), timeoutMs: 60000, signal: new AbortController().signal });
      console.log('ready');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.on('data', (c: Buffer) => c.toString().includes('ready') && resolve()));
    const [pid] = decodersOf(child.pid);
    expect(pid).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await until(() => !existsSync(`/proc/${pid}`) || readStatus(pid!) === 'Z');
  });
});

function readStatus(pid: number): string {
  try {
    return /State:\s+(\S)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
  } catch {
    return '';
  }
}
