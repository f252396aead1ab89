import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AudioDecodeError, decodeAudio, ffmpegPath, sniffAudioFormat } from '../../../../src/server/audio/decode.js';
import { encodeWav } from '../../../../src/server/audio/wav.js';
import { id3v2Length } from '../../../../src/server/audio/mpeg-frames.js';
import { noiseAfter } from '../../../helpers/noise.js';

const fixture = (ext: string) => readFileSync(new URL(`../../../../fixtures/speech-slt.${ext}`, import.meta.url));

/** A WAV header + data for arbitrary formats (what other tools write). */
function wavOf(opts: { tag: number; channels: number; rate: number; bits: number; data: Buffer }): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + opts.data.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(opts.tag, 20);
  h.writeUInt16LE(opts.channels, 22);
  h.writeUInt32LE(opts.rate, 24);
  h.writeUInt32LE((opts.rate * opts.channels * opts.bits) / 8, 28);
  h.writeUInt16LE((opts.channels * opts.bits) / 8, 32);
  h.writeUInt16LE(opts.bits, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(opts.data.length, 40);
  return Buffer.concat([h, opts.data]);
}

describe('sniffAudioFormat', () => {
  test('names the fixtures by their bytes', () => {
    expect(sniffAudioFormat(fixture('wav'))).toBe('wav');
    expect(sniffAudioFormat(fixture('mp3'))).toBe('mp3');
    expect(sniffAudioFormat(fixture('m4a'))).toBe('m4a');
  });

  test('recognises a bare MPEG frame, refuses ADTS AAC, text, and short buffers', () => {
    expect(sniffAudioFormat(Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]))).toBe('mp3');
    expect(sniffAudioFormat(Buffer.from([0xff, 0xf1, 0x50, 0x80, 0, 0, 0, 0]))).toBeUndefined();
    expect(sniffAudioFormat(Buffer.from('<html>not audio</html>'))).toBeUndefined();
    expect(sniffAudioFormat(Buffer.from('RIFF'))).toBeUndefined();
    expect(sniffAudioFormat(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('decodeAudio', () => {
  test('WAV, MP3 and M4A fixtures decode to the same length of mono 16 kHz audio', async () => {
    const [wav, mp3, m4a] = await Promise.all(['wav', 'mp3', 'm4a'].map((e) => decodeAudio(fixture(e))));
    for (const d of [wav, mp3, m4a]) {
      expect(d!.sampleRate).toBe(16000);
      expect(d!.durationSeconds).toBeCloseTo(3.26, 1);
    }
    expect(mp3!.format).toBe('mp3');
    expect(m4a!.format).toBe('m4a');
  });

  test('stereo 24-bit and float WAV at 44.1 kHz become mono PCM16 (channels averaged)', async () => {
    const frames = 441;
    const d24 = Buffer.alloc(frames * 6);
    const f32 = Buffer.alloc(frames * 8);
    for (let i = 0; i < frames; i++) {
      d24.writeIntLE(4_000_000, i * 6, 3); // left ≈ +0.477
      d24.writeIntLE(-2_000_000, i * 6 + 3, 3); // right ≈ -0.238
      f32.writeFloatLE(0.5, i * 8);
      f32.writeFloatLE(0.25, i * 8 + 4);
    }
    const a = await decodeAudio(wavOf({ tag: 1, channels: 2, rate: 44100, bits: 24, data: d24 }));
    expect(a.sampleRate).toBe(44100);
    expect(a.pcm.length).toBe(frames);
    expect(a.pcm[10]! / 32768).toBeCloseTo((4_000_000 - 2_000_000) / 2 / 8388608, 3);
    const b = await decodeAudio(wavOf({ tag: 3, channels: 2, rate: 44100, bits: 32, data: f32 }));
    expect(b.pcm[10]! / 32768).toBeCloseTo(0.375, 3);
  });

  test('8-bit unsigned WAV decodes', async () => {
    const a = await decodeAudio(wavOf({ tag: 1, channels: 1, rate: 8000, bits: 8, data: Buffer.alloc(800, 192) }));
    expect(a.pcm[0]! / 32768).toBeCloseTo(0.5, 2);
    expect(a.durationSeconds).toBeCloseTo(0.1, 5);
  });

  test('refuses what it cannot decode with AudioDecodeError', async () => {
    await expect(decodeAudio(Buffer.from('plain text'))).rejects.toThrow(AudioDecodeError);
    await expect(decodeAudio(Buffer.from('RIFF\0\0\0\0WAVEjunk'))).rejects.toThrow(/Invalid WAV/);
    await expect(decodeAudio(encodeWav(new Int16Array(0), 16000))).rejects.toMatchObject({ reason: 'corrupt', message: 'Invalid WAV file: unsupported or corrupt audio' });
    const m4a = fixture('m4a');
    await expect(decodeAudio(m4a.subarray(0, 200))).rejects.toThrow(/Invalid M4A/);
  });

  test('stops a file past 20 minutes as it decodes (DESIGN §17.1): 1.3 MB of 8 kbps MP3 is 21 minutes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-long-mp3-'));
    try {
      const path = join(dir, 'long.mp3');
      execFileSync(ffmpegPath(), ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '1260', '-c:a', 'libmp3lame', '-b:a', '8k', path]);
      await expect(decodeAudio(readFileSync(path))).rejects.toMatchObject({ reason: 'too_long', message: 'Audio longer than 20 minutes: a longer recording goes in a corpus of recorded calls' });
      // 19 minutes pass, mono at the file's rate.
      execFileSync(ffmpegPath(), ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '1140', '-c:a', 'libmp3lame', '-b:a', '8k', path]);
      const ok = await decodeAudio(readFileSync(path));
      expect(ok.sampleRate).toBe(8000);
      expect(Math.round(ok.durationSeconds)).toBe(1140);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('refuses noise behind an MPEG sync word: 4 KB of seeded random bytes starting FF FE, 40 seeds', async () => {
    for (let seed = 0; seed < 40; seed++) {
      const noise = noiseAfter([0xff, 0xfe], 4096, seed);
      expect(sniffAudioFormat(noise) === 'mp3' || sniffAudioFormat(noise) === undefined).toBe(true);
      await expect(decodeAudio(noise), `seed ${seed}`).rejects.toThrow(AudioDecodeError);
    }
  });

  test('still decodes an MP3 without its ID3 tag, and one cut mid-frame', async () => {
    const mp3 = fixture('mp3');
    const bare = mp3.subarray(id3v2Length(mp3));
    expect(bare[0]).toBe(0xff);
    for (const bytes of [bare, bare.subarray(0, Math.floor(bare.length / 2) + 7)]) {
      const d = await decodeAudio(bytes);
      expect(d.pcm.length).toBeGreaterThan(16000);
    }
  });
});
