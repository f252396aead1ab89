/**
 * RIFF/WAVE reading and writing. The writer always produces the canonical 44-byte-header PCM16 mono file
 * the service hands out; the parser is strict about structure (so a corrupt upload is refused, not
 * misread) but accepts what real tools write: 8/16/24/32-bit integer PCM, 32/64-bit float,
 * WAVE_FORMAT_EXTENSIBLE, LIST/fact/bext chunks and odd-sized chunks with their pad byte.
 */
import { endianness } from 'node:os';

/** Why a buffer is not a WAV file we can read. */
export class WavFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WavFormatError';
  }
}

/** Sample encoding of a parsed WAV file. */
export type WavSampleFormat = 'pcm' | 'float';

/** Everything needed to locate and interpret the samples of a WAV file. */
export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  format: WavSampleFormat;
  /** Bytes per frame (all channels of one sample instant). */
  blockAlign: number;
  /** Byte offset of the first sample in the buffer. */
  dataOffset: number;
  /** Length of the sample data in bytes (whole frames only). */
  dataBytes: number;
  /** Number of sample frames. */
  frames: number;
  /** frames / sampleRate. */
  durationSeconds: number;
}

/** Mono PCM16 audio at a given rate: the exchange format between engines, resampler and writer. */
export interface Pcm16Audio {
  pcm: Int16Array;
  sampleRate: number;
}

const WAVE_FORMAT_PCM = 0x0001;
const WAVE_FORMAT_IEEE_FLOAT = 0x0003;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
const HEADER_BYTES = 44;
/** Streaming writers that cannot seek back leave the data size as 0 or 0xFFFFFFFF. */
const UNKNOWN_SIZES = new Set([0, 0xffffffff]);

/** Encodes mono PCM16 samples as a canonical 44-byte-header WAV file. */
export function encodeWav(pcm: Int16Array, sampleRate: number): Buffer {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw new RangeError(`Invalid sample rate: ${sampleRate}`);
  const dataBytes = pcm.length * 2;
  const buf = Buffer.allocUnsafe(HEADER_BYTES + dataBytes);
  writeHeader(buf, dataBytes, sampleRate);
  if (endianness() === 'LE') {
    buf.set(new Uint8Array(pcm.buffer, pcm.byteOffset, dataBytes), HEADER_BYTES);
  } else {
    for (let i = 0; i < pcm.length; i++) buf.writeInt16LE(pcm[i] as number, HEADER_BYTES + i * 2);
  }
  return buf;
}

/** Writes the canonical header of a mono PCM16 WAV of `dataBytes` at the start of `buf`. */
function writeHeader(buf: Buffer, dataBytes: number, sampleRate: number): void {
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + dataBytes, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(WAVE_FORMAT_PCM, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataBytes, 40);
}

/** Samples made by `pcm16WithWavRoom`: the 44 bytes before them in their buffer are theirs. */
const withHeaderRoom = new WeakSet<Int16Array>();

/** A zeroed array of `length` samples with room for a WAV header before them in its own buffer (`wavAroundPcm`). */
export function pcm16WithWavRoom(length: number): Int16Array {
  const pcm = new Int16Array(new ArrayBuffer(HEADER_BYTES + length * 2), HEADER_BYTES, length);
  withHeaderRoom.add(pcm);
  return pcm;
}

/**
 * The WAV file of `pcm`, as `encodeWav` writes it. Samples from `pcm16WithWavRoom` (on a little-endian
 * machine) get the header written into the room before them and are not copied: the file shares their
 * memory, so they must not change while it is used (a corpus's decoded audio, stored as it is).
 */
export function wavAroundPcm(pcm: Int16Array, sampleRate: number): Buffer {
  if (!withHeaderRoom.has(pcm) || endianness() !== 'LE' || !Number.isInteger(sampleRate) || sampleRate <= 0) return encodeWav(pcm, sampleRate);
  const buf = Buffer.from(pcm.buffer, 0, HEADER_BYTES + pcm.byteLength);
  writeHeader(buf, pcm.byteLength, sampleRate);
  return buf;
}

interface FmtChunk {
  format: WavSampleFormat;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
}

/** Parses the header of a WAV file; throws `WavFormatError` with a human-readable reason. */
export function parseWav(buf: Uint8Array): WavInfo {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 12) throw new WavFormatError('File is too short to be a WAV file');
  if (b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE') {
    throw new WavFormatError('Not a RIFF/WAVE file');
  }
  let fmt: FmtChunk | undefined;
  let pos = 12;
  while (pos + 8 <= b.length) {
    const id = b.toString('ascii', pos, pos + 4);
    const size = b.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === 'fmt ') {
      if (body + size > b.length) throw new WavFormatError('fmt chunk is truncated');
      fmt = parseFmt(b.subarray(body, body + size));
    } else if (id === 'data') {
      if (!fmt) throw new WavFormatError('data chunk comes before the fmt chunk');
      return dataInfo(fmt, body, dataSize(b, body, size));
    } else if (body + size > b.length) {
      throw new WavFormatError(`${JSON.stringify(id)} chunk is truncated`);
    }
    pos = body + size + (size % 2);
  }
  throw new WavFormatError(fmt ? 'WAV file has no data chunk' : 'WAV file has no fmt chunk');
}

function dataSize(b: Buffer, body: number, size: number): number {
  const available = b.length - body;
  if (size <= available) return size;
  if (UNKNOWN_SIZES.has(size)) return available;
  throw new WavFormatError('data chunk is truncated');
}

function dataInfo(fmt: FmtChunk, dataOffset: number, size: number): WavInfo {
  const frames = Math.floor(size / fmt.blockAlign);
  return {
    ...fmt,
    dataOffset,
    dataBytes: frames * fmt.blockAlign,
    frames,
    durationSeconds: frames / fmt.sampleRate,
  };
}

function parseFmt(c: Buffer): FmtChunk {
  if (c.length < 16) throw new WavFormatError('fmt chunk is too short');
  let tag = c.readUInt16LE(0);
  const channels = c.readUInt16LE(2);
  const sampleRate = c.readUInt32LE(4);
  const blockAlign = c.readUInt16LE(12);
  const bitsPerSample = c.readUInt16LE(14);
  if (tag === WAVE_FORMAT_EXTENSIBLE) {
    if (c.length < 40) throw new WavFormatError('WAVE_FORMAT_EXTENSIBLE fmt chunk is too short');
    // The real format tag is the first two bytes of the SubFormat GUID.
    tag = c.readUInt16LE(24);
  }
  let format: WavSampleFormat;
  if (tag === WAVE_FORMAT_PCM) {
    if (![8, 16, 24, 32].includes(bitsPerSample)) {
      throw new WavFormatError(`Unsupported PCM bit depth: ${bitsPerSample}`);
    }
    format = 'pcm';
  } else if (tag === WAVE_FORMAT_IEEE_FLOAT) {
    if (bitsPerSample !== 32 && bitsPerSample !== 64) {
      throw new WavFormatError(`Unsupported float bit depth: ${bitsPerSample}`);
    }
    format = 'float';
  } else {
    throw new WavFormatError(`Unsupported WAV encoding (format tag 0x${tag.toString(16).padStart(4, '0')})`);
  }
  if (channels < 1) throw new WavFormatError('WAV file has no channels');
  if (sampleRate < 1 || sampleRate > 768_000) throw new WavFormatError(`Invalid sample rate: ${sampleRate}`);
  if (blockAlign !== channels * (bitsPerSample / 8)) {
    throw new WavFormatError(`Inconsistent block alignment: ${blockAlign}`);
  }
  return { format, channels, sampleRate, blockAlign, bitsPerSample };
}

/** Reads one sample as a float in [-1, 1]; `offset` is the byte offset of the sample. */
function sampleReader(info: WavInfo, b: Buffer): (offset: number) => number {
  if (info.format === 'float') {
    return info.bitsPerSample === 32 ? (o) => b.readFloatLE(o) : (o) => b.readDoubleLE(o);
  }
  switch (info.bitsPerSample) {
    case 8:
      return (o) => ((b[o] as number) - 128) / 128; // 8-bit WAV is unsigned
    case 16:
      return (o) => b.readInt16LE(o) / 32768;
    case 24:
      return (o) => b.readIntLE(o, 3) / 8388608;
    default:
      return (o) => b.readInt32LE(o) / 2147483648;
  }
}

/** Decodes the samples of a parsed WAV file to mono float32 in [-1, 1] (channels averaged). */
export function pcmToMonoFloat32(buf: Uint8Array, info: WavInfo = parseWav(buf)): Float32Array {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const read = sampleReader(info, b);
  const bytes = info.bitsPerSample / 8;
  const out = new Float32Array(info.frames);
  for (let f = 0; f < info.frames; f++) {
    const base = info.dataOffset + f * info.blockAlign;
    let sum = 0;
    for (let ch = 0; ch < info.channels; ch++) sum += read(base + ch * bytes);
    out[f] = sum / info.channels;
  }
  return out;
}

/** Converts float samples in [-1, 1] to PCM16 (clipped, rounded). */
export function float32ToPcm16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i] as number));
    out[i] = Math.max(-32768, Math.min(32767, Math.round(s * 32768)));
  }
  return out;
}

/** Reads any supported WAV file as mono PCM16 at its own rate. */
export function decodeWavToPcm16(buf: Uint8Array): Pcm16Audio {
  const info = parseWav(buf);
  if (info.format === 'pcm' && info.bitsPerSample === 16 && info.channels === 1) {
    // Fast path (our own files): copy so the result owns an aligned buffer.
    const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    const pcm = new Int16Array(info.frames);
    if (endianness() === 'LE') {
      new Uint8Array(pcm.buffer).set(b.subarray(info.dataOffset, info.dataOffset + info.dataBytes));
    } else {
      for (let i = 0; i < info.frames; i++) pcm[i] = b.readInt16LE(info.dataOffset + i * 2);
    }
    return { pcm, sampleRate: info.sampleRate };
  }
  return { pcm: float32ToPcm16(pcmToMonoFloat32(buf, info)), sampleRate: info.sampleRate };
}

/** Duration in seconds as the API reports it: samples / rate rounded to 3 decimals (DESIGN §4.6). */
export function roundedDuration(samples: number, sampleRate: number): number {
  return Math.round((samples / sampleRate) * 1000) / 1000;
}
