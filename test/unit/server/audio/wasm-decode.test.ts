/**
 * DESIGN §17.4: FLAC, Ogg Vorbis, Ogg Opus and MP3 are decoded by WebAssembly decoders, never by ffmpeg;
 * their samples match the source (FLAC exactly, the lossy codecs as ffmpeg's own decoders read them); a
 * corrupt file of each is `unsupported or corrupt audio`; M4A without an ffmpeg on PATH is refused with
 * DESIGN's message. Files are made here from a real recording with sox and Debian's ffmpeg.
 */
import { execFileSync, type spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudioFile, decodeAudioFiles, FileDecodeError, type DecodedFile, type FileResult } from '../../../../src/server/audio/file-decode.js';
import { decodeWavToPcm16 } from '../../../../src/server/audio/wav.js';

// A real recording of read speech (Debian's pocketsphinx-testdata): 2.99 s, 16 kHz mono.
const SPEECH = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';
const LIMITS = { maxBytes: 25 * 1024 * 1024, maxSeconds: 600 };

/** Every command child_process starts while `fn` runs (spawn and execFile alike go through spawn). */
async function spawnsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; spawned: string[] }> {
  const cp = createRequire(import.meta.url)('node:child_process') as { spawn: typeof spawn };
  const original = cp.spawn;
  const spawned: string[] = [];
  cp.spawn = ((command: string, ...rest: unknown[]) => {
    spawned.push(command);
    return (original as (...a: unknown[]) => unknown)(command, ...rest);
  }) as typeof cp.spawn;
  syncBuiltinESMExports();
  try {
    return { result: await fn(), spawned };
  } finally {
    cp.spawn = original;
    syncBuiltinESMExports();
  }
}

/** Signal-to-difference ratio in dB of `b` against `a` over their common length. */
function snrDb(a: Int16Array, b: Int16Array): number {
  let signal = 0;
  let noise = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    signal += a[i]! * a[i]!;
    noise += (a[i]! - b[i]!) ** 2;
  }
  return 10 * Math.log10(signal / Math.max(noise, 1));
}

describe('WebAssembly decoders for FLAC, Ogg Vorbis, Opus and MP3 (DESIGN §17.4)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-wasm-decode-'));
  const f = (name: string) => join(dir, name);
  const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-loglevel', 'error', '-y', ...args]);
  /** What Debian's ffmpeg decodes `name` to, as mono PCM16 at `rate`. */
  const ffmpegReads = (name: string, rate: number) => {
    ffmpeg(['-i', f(name), '-ac', '1', '-ar', String(rate), '-c:a', 'pcm_s16le', f(`${name}.ref.wav`)]);
    return decodeWavToPcm16(readFileSync(f(`${name}.ref.wav`))).pcm;
  };
  let source: Int16Array;

  beforeAll(() => {
    source = decodeWavToPcm16(readFileSync(SPEECH)).pcm;
    execFileSync('sox', [SPEECH, f('a.flac')]);
    execFileSync('sox', [SPEECH, '-c', '2', f('stereo.flac')]);
    execFileSync('sox', [SPEECH, f('a.ogg')]);
    ffmpeg(['-i', SPEECH, '-c:a', 'libopus', f('a.opus')]);
    ffmpeg(['-i', SPEECH, '-c:a', 'libmp3lame', f('a.mp3')]);
    ffmpeg(['-i', SPEECH, '-c:a', 'aac', f('a.m4a')]);
    copyFileSync(SPEECH, f('a.wav'));
    // A FLAC whose last frame codec-parser drops at the end of its input (found by bench/corpus.mjs).
    const other = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0890.wav';
    execFileSync('sox', [other, f('tail.wav'), 'pad', '0.15', '0.15']);
    execFileSync('sox', [f('tail.wav'), f('tail.flac')]);

    // Corrupt files: a FLAC whose frames are overwritten after the first ones (libFLAC's frame CRCs fail);
    // an Ogg Vorbis and an Opus file whose third page lost its capture pattern; an ID3 tag followed by noise
    // that an MPEG frame sync starts.
    const flac = readFileSync(f('a.flac'));
    const noise = Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919 + 13) % 251));
    noise.copy(flac, 20_000);
    writeFileSync(f('bad.flac'), flac);
    for (const name of ['a.ogg', 'a.opus']) {
      const ogg = readFileSync(f(name));
      const third = ogg.indexOf('OggS', ogg.indexOf('OggS', ogg.indexOf('OggS', 0) + 4) + 4);
      ogg.write('XXXX', third, 'latin1');
      writeFileSync(f(`bad.${name.slice(2)}`), ogg);
    }
    const id3 = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]);
    writeFileSync(f('bad.mp3'), Buffer.concat([id3, Buffer.from([0xff, 0xfb, 0x90, 0x64]), noise, noise]));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('decodes FLAC (exactly the source), Vorbis, Opus and MP3 (as ffmpeg reads them) without starting any process', async () => {
    const { result, spawned } = await spawnsDuring(async () => {
      const out: Record<string, DecodedFile> = {};
      for (const name of ['a.flac', 'stereo.flac', 'a.ogg', 'a.opus', 'a.mp3']) out[name] = await decodeAudioFile(f(name), LIMITS);
      return out;
    });
    expect(spawned).toEqual([]);

    expect(result['a.flac']!.sampleRate).toBe(16_000);
    expect(result['a.flac']!.pcm).toEqual(source);
    // Two equal channels mix down to the source again (±1 for the rounding of their average).
    const stereo = result['stereo.flac']!.pcm;
    expect(stereo.length).toBe(source.length);
    expect(Math.max(...stereo.map((s, i) => Math.abs(s - source[i]!)))).toBeLessThanOrEqual(1);

    for (const [name, rate] of [['a.ogg', 16_000], ['a.opus', 48_000], ['a.mp3', 16_000]] as const) {
      const decoded = result[name]!;
      expect(decoded.sampleRate, name).toBe(rate);
      const reference = ffmpegReads(name, rate);
      // Same length as ffmpeg's decoder gives (within 2 ms: encoder padding is trimmed alike) ...
      expect(Math.abs(decoded.pcm.length - reference.length), name).toBeLessThanOrEqual(rate / 500);
      // ... and the same signal: two decoders of one stream differ by rounding only.
      expect(snrDb(reference, decoded.pcm), name).toBeGreaterThan(30);
    }
  });

  it('decodes every frame of a FLAC up to its declared length, the last one too', async () => {
    const decoded = await decodeAudioFile(f('tail.flac'), LIMITS);
    expect(decoded.pcm.length).toBe(89_600);
    // As ffmpeg reads it (libFLAC's float output rounds one sample of this file one step apart).
    const reference = ffmpegReads('tail.flac', 16_000);
    expect(Math.max(...decoded.pcm.map((v, i) => Math.abs(v - reference[i]!)))).toBeLessThanOrEqual(1);
  });

  it.each(['bad.flac', 'bad.ogg', 'bad.opus', 'bad.mp3'])('refuses %s as unsupported or corrupt audio', async (name) => {
    const err = await decodeAudioFile(f(name), LIMITS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileDecodeError);
    expect((err as FileDecodeError).reason).toBe('corrupt');
  });

  describe('without an ffmpeg on PATH', () => {
    const path = process.env.PATH;
    afterEach(() => {
      process.env.PATH = path;
    });

    it('still decodes FLAC, Vorbis, Opus, MP3 and WAV, and refuses M4A with DESIGN’s message', async () => {
      process.env.PATH = join(dir, 'no-such-bin');
      const results: FileResult[] = [];
      const names = ['a.flac', 'a.ogg', 'a.opus', 'a.mp3', 'a.wav', 'a.m4a'];
      await decodeAudioFiles(
        names.map(f),
        { scratch: dir, limits: LIMITS },
        async (i, r) => void (results[i] = r),
      );
      expect(results.map((r) => (r instanceof FileDecodeError ? r.message : Math.round((r.pcm.length / r.sampleRate) * 10)))).toEqual([
        30,
        30,
        30,
        30,
        30,
        'M4A needs ffmpeg (apt-get install ffmpeg)',
      ]);
      expect((results[5] as FileDecodeError).reason).toBe('needs_ffmpeg');
      const single = await decodeAudioFile(f('a.m4a'), LIMITS).catch((e: unknown) => e);
      expect((single as FileDecodeError).message).toBe('M4A needs ffmpeg (apt-get install ffmpeg)');
    });
  });
});
