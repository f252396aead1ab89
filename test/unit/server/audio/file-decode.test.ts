import { mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudioFile, decodeAudioFiles, FileDecodeError, type FileResult } from '../../../../src/server/audio/file-decode.js';
import { ffmpegPath } from '../../../../src/server/audio/decode.js';

// A real recording of read speech (Debian's pocketsphinx-testdata): 2.99 s, 16 kHz mono.
const SPEECH = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';
const LIMITS = { maxBytes: 25 * 1024 * 1024, maxSeconds: 600 };

describe('decodeAudioFile: the corpus formats (DESIGN §10.2)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-decode-'));
  const f = (name: string) => join(dir, name);
  beforeAll(() => {
    copyFileSync(SPEECH, f('a.wav'));
    execFileSync('sox', [SPEECH, f('a.flac')]);
    execFileSync('sox', [SPEECH, f('a.ogg')]);
    execFileSync('sox', [SPEECH, '-r', '96000', '-c', '2', f('stereo96.wav')]);
    execFileSync('sox', [SPEECH, '-e', 'u-law', f('mulaw.wav')]);
    const ff = (args: string[]) => execFileSync(ffmpegPath(), ['-loglevel', 'error', '-y', '-i', SPEECH, ...args]);
    ff([f('a.mp3')]);
    ff(['-c:a', 'aac', f('a.m4a')]);
    ff(['-c:a', 'opus', '-strict', '-2', '-ar', '48000', f('a.opus')]);
    writeFileSync(f('junk.flac'), Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(200, 7)]));
    writeFileSync(f('text.wav'), 'hello, not audio at all');
    writeFileSync(f('playlist.mp3'), '#EXTM3U\nfile:///etc/passwd\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['a.wav', 16000],
    ['a.flac', 16000],
    ['a.ogg', 16000],
    ['a.mp3', 16000],
    ['a.m4a', 16000],
    ['a.opus', 48000],
    ['mulaw.wav', 16000],
    ['stereo96.wav', 48000],
  ])('%s → mono PCM16 at %i Hz, about 3 s', async (name, rate) => {
    const d = await decodeAudioFile(f(name), LIMITS);
    expect(d.sampleRate).toBe(rate);
    expect(d.pcm.length / d.sampleRate).toBeGreaterThan(2.9);
    expect(d.pcm.length / d.sampleRate).toBeLessThan(3.2);
    // Speech, not silence: the decoder produced the signal.
    expect(Math.max(...d.pcm.subarray(0, 40000).map(Math.abs))).toBeGreaterThan(1000);
  });

  it.each(['junk.flac', 'text.wav', 'playlist.mp3'])('refuses %s as corrupt', async (name) => {
    const err = await decodeAudioFile(f(name), LIMITS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileDecodeError);
    expect((err as FileDecodeError).reason).toBe('corrupt');
  });

  it('refuses 16 channels that only ffmpeg decodes, whose header the first bytes do not show (DESIGN §17.4)', async () => {
    // A 16-channel PCM QuickTime file (sniffed as M4A), and a 16-channel µ-law WAV whose `fmt ` chunk
    // comes after 5 KB of JUNK: ffmpeg mixes both down to one channel, so its output cannot tell.
    execFileSync(ffmpegPath(), ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=f=300:r=16000:d=0.5', '-filter_complex', '[0]asplit=16[a0][a1][a2][a3][a4][a5][a6][a7][a8][a9][a10][a11][a12][a13][a14][a15];[a0][a1][a2][a3][a4][a5][a6][a7][a8][a9][a10][a11][a12][a13][a14][a15]join=inputs=16:channel_layout=hexadecagonal[out]', '-map', '[out]', '-c:a', 'pcm_s16le', '-f', 'mov', f('sixteen.m4a')]);
    const ulaw = execFileSync('sox', ['-n', '-t', 'wav', '-e', 'u-law', '-r', '8000', '-c', '16', '-', 'synth', '0.5', 'sine', '300']);
    const fmtAt = ulaw.indexOf('fmt ');
    const junk = Buffer.alloc(8 + 5120);
    junk.write('JUNK', 0, 'latin1');
    junk.writeUInt32LE(5120, 4);
    const moved = Buffer.concat([ulaw.subarray(0, fmtAt), junk, ulaw.subarray(fmtAt)]);
    moved.writeUInt32LE(moved.length - 8, 4);
    writeFileSync(f('sixteen-junk.wav'), moved);
    for (const name of ['sixteen.m4a', 'sixteen-junk.wav']) {
      const err = await decodeAudioFile(f(name), LIMITS).catch((e: unknown) => e);
      expect((err as FileDecodeError).reason, name).toBe('corrupt');
    }
    const scratch = join(dir, 'scratch16');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(scratch, { recursive: true });
    const results: FileResult[] = [];
    await decodeAudioFiles([f('a.m4a'), f('sixteen.m4a'), f('sixteen-junk.wav')], { scratch, limits: LIMITS }, async (i, r) => void (results[i] = r));
    expect(results.map((r) => (r instanceof FileDecodeError ? r.reason : 'ok'))).toEqual(['ok', 'corrupt', 'corrupt']);
  });

  it('decodes a batch (its M4A files in one ffmpeg run), and names each bad file', async () => {
    const scratch = join(dir, 'scratch');
    const { mkdirSync, readdirSync } = await import('node:fs');
    mkdirSync(scratch, { recursive: true });
    const good = ['a.flac', 'a.ogg', 'a.mp3', 'a.m4a', 'a.wav', 'mulaw.wav'].map(f);
    const decodeAll = async (paths: string[], limits = LIMITS) => {
      const results: FileResult[] = [];
      await decodeAudioFiles(paths, { scratch, limits }, async (i, r) => void (results[i] = r));
      return results;
    };
    const ok = await decodeAll(good);
    expect(ok.map((r) => (r instanceof FileDecodeError ? r.reason : Math.round((r.pcm.length / r.sampleRate) * 10)))).toEqual([30, 30, 30, 30, 30, 30]);
    const mixed = await decodeAll([f('a.flac'), f('junk.flac'), f('a.ogg'), f('text.wav')]);
    expect(mixed.map((r) => (r instanceof FileDecodeError ? r.reason : 'ok'))).toEqual(['ok', 'corrupt', 'ok', 'corrupt']);
    const long = await decodeAll([f('a.flac'), f('a.ogg')], { ...LIMITS, maxSeconds: 1 });
    expect(long.map((r) => (r instanceof FileDecodeError ? r.reason : 'ok'))).toEqual(['too_long', 'too_long']);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('stops a file longer than the limit, and refuses a file over the byte limit before reading it', async () => {
    for (const name of ['a.flac', 'a.wav', 'a.ogg']) {
      const err = await decodeAudioFile(f(name), { ...LIMITS, maxSeconds: 1 }).catch((e: unknown) => e);
      expect((err as FileDecodeError).reason).toBe('too_long');
    }
    const err = await decodeAudioFile(f('a.wav'), { ...LIMITS, maxBytes: 1000 }).catch((e: unknown) => e);
    expect((err as FileDecodeError).reason).toBe('too_big');
  });
});
