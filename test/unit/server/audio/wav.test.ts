import { describe, expect, it } from 'vitest';
import {
  WavFormatError,
  decodeWavToPcm16,
  encodeWav,
  float32ToPcm16,
  parseWav,
  pcmToMonoFloat32,
  roundedDuration,
} from '../../../../src/server/audio/wav.js';

/** A RIFF chunk with its pad byte when the size is odd. */
function chunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function riff(...chunks: Buffer[]): Buffer {
  const body = Buffer.concat([Buffer.from('WAVE'), ...chunks]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

function fmt(opts: { tag: number; channels: number; rate: number; bits: number; extensibleTag?: number }): Buffer {
  const ext = opts.extensibleTag !== undefined;
  const b = Buffer.alloc(ext ? 40 : 16);
  const align = (opts.channels * opts.bits) / 8;
  b.writeUInt16LE(opts.tag, 0);
  b.writeUInt16LE(opts.channels, 2);
  b.writeUInt32LE(opts.rate, 4);
  b.writeUInt32LE(opts.rate * align, 8);
  b.writeUInt16LE(align, 12);
  b.writeUInt16LE(opts.bits, 14);
  if (ext) {
    b.writeUInt16LE(22, 16);
    b.writeUInt16LE(opts.bits, 18);
    b.writeUInt32LE(opts.channels === 2 ? 3 : 4, 20);
    b.writeUInt16LE(opts.extensibleTag as number, 24);
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(b, 26);
  }
  return b;
}

describe('encodeWav / parseWav', () => {
  it('round-trips PCM16 mono with a canonical 44-byte header', () => {
    const pcm = Int16Array.from({ length: 22050 }, (_, i) => Math.round(Math.sin(i / 10) * 20000));
    const wav = encodeWav(pcm, 22050);
    expect(wav.length).toBe(44 + pcm.length * 2);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    const info = parseWav(wav);
    expect(info).toMatchObject({
      sampleRate: 22050,
      channels: 1,
      bitsPerSample: 16,
      format: 'pcm',
      dataOffset: 44,
      dataBytes: pcm.length * 2,
      frames: pcm.length,
      durationSeconds: 1,
    });
    const back = decodeWavToPcm16(wav);
    expect(back.sampleRate).toBe(22050);
    expect(Array.from(back.pcm)).toEqual(Array.from(pcm));
  });

  it('keeps extreme sample values and an empty signal', () => {
    const pcm = Int16Array.from([-32768, 32767, 0, -1, 1]);
    expect(Array.from(decodeWavToPcm16(encodeWav(pcm, 8000)).pcm)).toEqual([-32768, 32767, 0, -1, 1]);
    const empty = parseWav(encodeWav(new Int16Array(0), 16000));
    expect(empty.frames).toBe(0);
    expect(empty.durationSeconds).toBe(0);
  });

  it('rejects invalid sample rates when writing', () => {
    expect(() => encodeWav(new Int16Array(4), 0)).toThrow(RangeError);
    expect(() => encodeWav(new Int16Array(4), 44.1)).toThrow(RangeError);
  });

  it('skips LIST chunks and odd-sized chunks with their pad byte', () => {
    const data = Buffer.alloc(8);
    [100, -100, 200, -200].forEach((v, i) => data.writeInt16LE(v, i * 2));
    const wav = riff(
      chunk('LIST', Buffer.from('INFOISFT\x05\x00\x00\x00Lavf\x00', 'latin1')),
      chunk('fmt ', fmt({ tag: 1, channels: 1, rate: 16000, bits: 16 })),
      chunk('junk', Buffer.from('abc')), // odd: followed by one pad byte
      chunk('data', data),
    );
    const info = parseWav(wav);
    expect(info.frames).toBe(4);
    expect(Array.from(decodeWavToPcm16(wav).pcm)).toEqual([100, -100, 200, -200]);
  });

  it('reads 8-bit unsigned, 24-bit, 32-bit int and 32-bit float, downmixing stereo', () => {
    const u8 = riff(chunk('fmt ', fmt({ tag: 1, channels: 1, rate: 8000, bits: 8 })), chunk('data', Buffer.from([128, 255, 0])));
    expect(Array.from(pcmToMonoFloat32(u8))).toEqual([0, 127 / 128, -1]);

    const d24 = Buffer.alloc(6);
    d24.writeIntLE(4194304, 0, 3); // 0.5
    d24.writeIntLE(-8388608, 3, 3); // -1
    const w24 = riff(chunk('fmt ', fmt({ tag: 1, channels: 1, rate: 48000, bits: 24 })), chunk('data', d24));
    expect(Array.from(pcmToMonoFloat32(w24))).toEqual([0.5, -1]);

    const d32 = Buffer.alloc(8);
    d32.writeInt32LE(1073741824, 0); // 0.5 (left)
    d32.writeInt32LE(0, 4); // 0 (right)
    const w32 = riff(chunk('fmt ', fmt({ tag: 1, channels: 2, rate: 44100, bits: 32 })), chunk('data', d32));
    expect(parseWav(w32).frames).toBe(1);
    expect(Array.from(pcmToMonoFloat32(w32))).toEqual([0.25]);

    const f32 = Buffer.alloc(8);
    f32.writeFloatLE(0.25, 0);
    f32.writeFloatLE(-0.75, 4);
    const wf = riff(chunk('fmt ', fmt({ tag: 3, channels: 1, rate: 24000, bits: 32 })), chunk('fact', Buffer.alloc(4)), chunk('data', f32));
    expect(parseWav(wf).format).toBe('float');
    expect(Array.from(decodeWavToPcm16(wf).pcm)).toEqual([8192, -24576]);
  });

  it('understands WAVE_FORMAT_EXTENSIBLE (PCM and float sub-formats)', () => {
    const d = Buffer.alloc(4);
    d.writeInt16LE(1000, 0);
    d.writeInt16LE(3000, 2);
    const pcm = riff(chunk('fmt ', fmt({ tag: 0xfffe, channels: 2, rate: 16000, bits: 16, extensibleTag: 1 })), chunk('data', d));
    expect(parseWav(pcm)).toMatchObject({ format: 'pcm', channels: 2, frames: 1 });
    expect(Array.from(decodeWavToPcm16(pcm).pcm)).toEqual([2000]);
    const f = Buffer.alloc(4);
    f.writeFloatLE(0.5, 0);
    const flt = riff(chunk('fmt ', fmt({ tag: 0xfffe, channels: 1, rate: 16000, bits: 32, extensibleTag: 3 })), chunk('data', f));
    expect(parseWav(flt).format).toBe('float');
  });

  it('accepts a streamed data size (0xFFFFFFFF) and drops a trailing partial frame', () => {
    const wav = encodeWav(Int16Array.from([1, 2, 3]), 8000);
    wav.writeUInt32LE(0xffffffff, 40);
    expect(parseWav(wav).frames).toBe(3);
    const odd = Buffer.concat([encodeWav(Int16Array.from([1, 2]), 8000), Buffer.from([7])]);
    odd.writeUInt32LE(5, 40);
    expect(parseWav(odd)).toMatchObject({ frames: 2, dataBytes: 4 });
  });

  it.each([
    ['empty', Buffer.alloc(0), /too short/],
    ['not RIFF', Buffer.from('ID3\x04 not a wave file at all'), /Not a RIFF/],
    ['no fmt', riff(chunk('data', Buffer.alloc(4))), /before the fmt/],
    ['no data', riff(chunk('fmt ', fmt({ tag: 1, channels: 1, rate: 8000, bits: 16 }))), /no data chunk/],
    ['truncated data', encodeWav(new Int16Array(100), 8000).subarray(0, 100), /data chunk is truncated/],
    ['mu-law', riff(chunk('fmt ', fmt({ tag: 7, channels: 1, rate: 8000, bits: 8 })), chunk('data', Buffer.alloc(2))), /format tag 0x0007/],
    ['12-bit', riff(chunk('fmt ', fmt({ tag: 1, channels: 1, rate: 8000, bits: 12 })), chunk('data', Buffer.alloc(2))), /bit depth/],
    ['zero rate', riff(chunk('fmt ', fmt({ tag: 1, channels: 1, rate: 0, bits: 16 })), chunk('data', Buffer.alloc(2))), /sample rate/],
  ])('rejects %s', (_name, buf, message) => {
    expect(() => parseWav(buf)).toThrow(WavFormatError);
    expect(() => parseWav(buf)).toThrow(message);
  });

  it('rejects an inconsistent block alignment', () => {
    const f = fmt({ tag: 1, channels: 2, rate: 8000, bits: 16 });
    f.writeUInt16LE(2, 12);
    expect(() => parseWav(riff(chunk('fmt ', f), chunk('data', Buffer.alloc(4))))).toThrow(/block alignment/);
  });

  it('parses a WAV that lives inside a larger buffer (non-zero byteOffset)', () => {
    const wav = encodeWav(Int16Array.from([5, -5]), 16000);
    const host = Buffer.concat([Buffer.alloc(3), wav]);
    const view = host.subarray(3);
    expect(Array.from(decodeWavToPcm16(view).pcm)).toEqual([5, -5]);
  });
});

describe('helpers', () => {
  it('float32ToPcm16 clips and rounds', () => {
    expect(Array.from(float32ToPcm16(Float32Array.from([0, 1, -1, 2, -2, 0.5])))).toEqual([0, 32767, -32768, 32767, -32768, 16384]);
  });

  it('roundedDuration rounds samples/rate to 3 decimals', () => {
    expect(roundedDuration(22050, 22050)).toBe(1);
    expect(roundedDuration(12345, 16000)).toBe(0.772);
    expect(roundedDuration(1, 3)).toBe(0.333);
  });
});
