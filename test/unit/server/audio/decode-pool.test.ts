/**
 * The decoding pool (issue 33): a corpus upload's files decoded on worker threads, each written as the WAV
 * the blob store keeps — the same samples the event loop's decoder gives, the same refusals, and no thread
 * left once there is nothing to decode.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDecodePool, defaultDecodeThreads, type DecodePool } from '../../../../src/server/audio/decode-pool.js';
import { ffmpegPath } from '../../../../src/server/audio/decode.js';
import { decodeAudioFile, FileDecodeError } from '../../../../src/server/audio/file-decode.js';
import { decodeWavToPcm16 } from '../../../../src/server/audio/wav.js';

const SPEECH = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';
const LIMITS = { maxBytes: 25 * 1024 * 1024, maxSeconds: 600 };

describe('the decoding pool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-decode-pool-'));
  const f = (name: string) => join(dir, name);
  const pools: DecodePool[] = [];
  const pool = (options: Parameters<typeof createDecodePool>[0] = {}) => {
    const p = createDecodePool(options);
    pools.push(p);
    return p;
  };
  beforeAll(() => {
    copyFileSync(SPEECH, f('a.wav'));
    execFileSync('sox', [SPEECH, f('a.flac')]);
    execFileSync('sox', [SPEECH, '-c', '2', f('stereo.ogg')]);
    execFileSync(ffmpegPath(), ['-loglevel', 'error', '-y', '-i', SPEECH, f('a.mp3')]);
    execFileSync(ffmpegPath(), ['-loglevel', 'error', '-y', '-i', SPEECH, '-c:a', 'aac', f('a.m4a')]);
    writeFileSync(f('junk.flac'), Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(200, 7)]));
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['a.wav', 'a.flac', 'stereo.ogg', 'a.mp3'])('%s: the WAV written holds what the event loop decodes, sample for sample', async (name) => {
    const out = f(`${name}.out.wav`);
    const outcome = await pool({ size: 1 }).decodeToFile(f(name), out, LIMITS);
    const expected = await decodeAudioFile(f(name), LIMITS);
    const written = decodeWavToPcm16(readFileSync(out));
    expect(written.sampleRate).toBe(expected.sampleRate);
    expect(Buffer.from(written.pcm.buffer, written.pcm.byteOffset, written.pcm.byteLength).equals(Buffer.from(expected.pcm.buffer, expected.pcm.byteOffset, expected.pcm.byteLength))).toBe(true);
    expect(outcome).toEqual({ sampleRate: expected.sampleRate, frames: expected.pcm.length, bytes: readFileSync(out).length });
  });

  it('refuses as the event loop does: corrupt, too big, too long; an M4A is left to ffmpeg', async () => {
    const p = pool({ size: 2 });
    const [junk, big, long, m4a] = await Promise.all([
      p.decodeToFile(f('junk.flac'), f('junk.out.wav'), LIMITS),
      p.decodeToFile(f('a.flac'), f('big.out.wav'), { maxBytes: 1000, maxSeconds: 600 }),
      p.decodeToFile(f('a.flac'), f('long.out.wav'), { maxBytes: LIMITS.maxBytes, maxSeconds: 1 }),
      p.decodeToFile(f('a.m4a'), f('m4a.out.wav'), LIMITS),
    ]);
    expect(junk).toBeInstanceOf(FileDecodeError);
    expect((junk as FileDecodeError).reason).toBe('corrupt');
    expect((big as FileDecodeError).reason).toBe('too_big');
    expect((long as FileDecodeError).reason).toBe('too_long');
    expect(m4a).toBe('ffmpeg');
    for (const name of ['junk', 'big', 'long', 'm4a']) expect(existsSync(f(`${name}.out.wav`))).toBe(false);
  });

  it('a file it cannot read at all is a failure of its own (the caller answers 500), not a refusal', async () => {
    await expect(pool({ size: 1 }).decodeToFile(f('missing.flac'), f('missing.out.wav'), LIMITS)).rejects.toThrow(/Decoding failed: .*ENOENT/);
  });

  it('an abort takes a queued file off the queue and stops a running one, with the signal’s reason', async () => {
    const p = pool({ size: 1 });
    const controller = new AbortController();
    const files = Array.from({ length: 6 }, (_, i) => p.decodeToFile(f('a.flac'), f(`abort-${i}.out.wav`), LIMITS, { signal: controller.signal }));
    controller.abort(new Error('the client left'));
    const settled = await Promise.allSettled(files);
    expect(settled.every((s) => s.status === 'rejected' && (s.reason as Error).message === 'the client left')).toBe(true);
    expect(p.stats().queued).toBe(0);
    // The pool goes on serving.
    expect(await p.decodeToFile(f('a.wav'), f('after.out.wav'), LIMITS)).toMatchObject({ sampleRate: 16000 });
  });

  it('uploads take turns: a small one is not held up behind a large one asked for first', async () => {
    const p = pool({ size: 1 });
    const [large, small] = [{}, {}];
    const order: string[] = [];
    const ask = (name: string, turn: object) => p.decodeToFile(f('a.flac'), f(`${name}.out.wav`), LIMITS, { turn }).then(() => void order.push(name));
    const done = [...['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8'].map((n) => ask(n, large)), ask('B1', small), ask('B2', small)];
    await Promise.all(done);
    // First come first served would finish B1 and B2 last; taking turns, both are done before A7 and A8.
    expect(order.indexOf('B2')).toBeLessThan(order.indexOf('A7'));
    expect(order.indexOf('B1')).toBeLessThan(order.indexOf('A7'));
  });

  it('starts threads for work only, at most `size`, and ends them after `idleMs` without any', async () => {
    const p = pool({ size: 2, idleMs: 100 });
    expect(p.stats().workers).toBe(0);
    const running = Array.from({ length: 8 }, (_, i) => p.decodeToFile(f('a.flac'), f(`idle-${i}.out.wav`), LIMITS));
    expect(p.stats().workers).toBe(2);
    await Promise.all(running);
    for (let i = 0; i < 100 && p.stats().workers > 0; i++) await sleep(50);
    expect(p.stats()).toEqual({ workers: 0, busy: 0, queued: 0 });
  });

  it('once closed, what is queued rejects and nothing new is taken', async () => {
    const p = pool({ size: 1 });
    const queued = Promise.allSettled(Array.from({ length: 4 }, (_, i) => p.decodeToFile(f('a.flac'), f(`closed-${i}.out.wav`), LIMITS)));
    await p.close();
    const settled = await queued;
    expect(settled.some((s) => s.status === 'rejected')).toBe(true);
    await expect(p.decodeToFile(f('a.flac'), f('late.out.wav'), LIMITS)).rejects.toThrow(/closed/);
  });

  it('leaves one core to the event loop, and takes two at most', () => {
    expect([1, 2, 3, 4, 64].map((cores) => defaultDecodeThreads(cores))).toEqual([1, 1, 2, 2, 2]);
  });
});
