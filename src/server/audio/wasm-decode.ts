/**
 * FLAC, Ogg Vorbis, Ogg Opus and MP3 decoded in a WebAssembly sandbox (DESIGN §17.4): libFLAC, libvorbis,
 * libopus and mpg123 built to WebAssembly (@wasm-audio-decoders/flac, @wasm-audio-decoders/ogg-vorbis,
 * ogg-opus-decoder, mpg123-decoder), so a decoder bug reached by a hostile file stays inside the module's
 * linear memory instead of the process.
 *
 * A file is read 64 KB at a time and each decoder call gets one FLAC frame, one Ogg page or 16 KB of MP3:
 * what one call can return is bounded whatever the file's compression (a FLAC frame: 65,535 samples × 8
 * channels, 2 MB of floats; an Ogg page of 255 silent 120 ms Opus packets of 8 channels, 47 MB; 16 KB of MP3,
 * under 2 MB), where handing a decoder 64 KB of silent FLAC frames would return gigabytes. The samples of
 * each call go to the caller before the next call; the event loop gets a turn every few milliseconds.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import CodecParser, { type CodecFrame, type OggPage } from 'codec-parser';
import { FLACDecoder } from '@wasm-audio-decoders/flac';
import { OggVorbisDecoder } from '@wasm-audio-decoders/ogg-vorbis';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { MPEGDecoder } from 'mpg123-decoder';
import { threadPoolIo, type FileIo } from './file-io.js';

/** The codecs decoded here; an Ogg file is one of its two by its first packet (`oggCodec`). */
export type WasmCodec = 'flac' | 'vorbis' | 'opus' | 'mp3';

/** What one decoder call gave: planar float channels at `sampleRate`. */
export interface PlanarAudio {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
}

/** The file is not a decodable stream of its codec (the decoder reported an error or threw). */
export class WasmDecodeError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'WasmDecodeError';
  }
}

/** Bytes read from the file at a time. */
const READ_BYTES = 64 * 1024;
/** MP3 bytes per decoder call: mpg123 returns at most ~100 floats per input byte. */
const MP3_BYTES = 16 * 1024;
/** Largest Ogg page: a 27-byte header, 255 lacing values, 255 × 255 bytes of data. */
const MAX_OGG_PAGE = 27 + 255 + 255 * 255;
/** Longest stretch of decoding between two turns given back to the event loop. */
const TURN_MS = 8;

/** Vorbis or Opus from the first packet of an Ogg stream's first page, or undefined for anything else. */
export function oggCodec(head: Uint8Array): 'vorbis' | 'opus' | undefined {
  if (head.length < 27) return undefined;
  const packet = Buffer.from(head.buffer, head.byteOffset, head.byteLength).subarray(27 + (head[26] as number));
  if (packet.toString('latin1', 0, 7) === '\x01vorbis') return 'vorbis';
  if (packet.toString('latin1', 0, 8) === 'OpusHead') return 'opus';
  return undefined;
}

/** The file's bytes, `size` at a time (each chunk a new buffer: a parser may keep a reference to it). */
async function* chunks(io: FileIo, path: string, size: number, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const fh = await io.open(path);
  try {
    // Buffers no bigger than what is left of the file: a corpus of small files would otherwise allocate
    // a full chunk for each (and read once more to find the end).
    const total = await fh.size();
    for (let at = 0; at < total; ) {
      signal?.throwIfAborted();
      const want = Math.min(size, total - at);
      const buf = Buffer.allocUnsafe(want);
      const bytesRead = await fh.read(buf, want, at);
      if (bytesRead === 0) return;
      at += bytesRead;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

/**
 * Splits an Ogg byte stream into whole pages. A page that does not start with `OggS` version 0 is an error;
 * a last page cut short by the end of the file is dropped (a truncated recording keeps what came before it).
 */
export function oggPageSplitter(): { push(chunk: Uint8Array): Uint8Array[] } {
  let pending = Buffer.alloc(0);
  return {
    push(chunk) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : Buffer.from(chunk);
      const pages: Uint8Array[] = [];
      let at = 0;
      while (pending.length - at >= 27) {
        if (pending.toString('latin1', at, at + 4) !== 'OggS' || pending[at + 4] !== 0) throw new WasmDecodeError('not an Ogg page');
        const segments = pending[at + 26] as number;
        if (pending.length - at < 27 + segments) break;
        let size = 27 + segments;
        for (let i = 0; i < segments; i++) size += pending[at + 27 + i] as number;
        if (pending.length - at < size) break;
        pages.push(pending.subarray(at, at + size));
        at += size;
      }
      pending = pending.subarray(at);
      if (pending.length > MAX_OGG_PAGE) throw new WasmDecodeError('not an Ogg page');
      return pages;
    },
  };
}

/** The FLAC frames a codec-parser call yields (typed as a bare Iterator by the package). */
function* frames(it: Iterator<CodecFrame | OggPage>): Generator<CodecFrame> {
  for (let r = it.next(); !r.done; r = it.next()) yield r.value as CodecFrame;
}

/**
 * Checks that FLAC frames follow each other: codec-parser skips bytes that do not parse as a frame, so a
 * damaged stretch of a file would otherwise vanish from the audio without a word. Each frame header numbers
 * its frame (fixed block size) or its first sample (variable block size).
 */
function flacSequence(): { next(frame: CodecFrame): void; samples(): number } {
  let frameNo = 0;
  let sampleNo = 0;
  return {
    next(frame) {
      const header = frame.header as { frameNumber?: number; sampleNumber?: number; blockSize: number };
      const ok = header.sampleNumber !== undefined ? header.sampleNumber === sampleNo : header.frameNumber === frameNo;
      if (!ok) throw new WasmDecodeError('FLAC frames missing or out of order');
      frameNo++;
      sampleNo += header.blockSize;
    },
    samples: () => sampleNo,
  };
}

/**
 * Samples per channel a FLAC file's STREAMINFO declares (0: unknown), from its first bytes: `fLaC`, a
 * 4-byte block header, then 36 bits of total samples at bits 108-143 of the 34-byte STREAMINFO.
 */
export function flacDeclaredSamples(head: Uint8Array): number {
  if (head.length < 26) return 0;
  return ((head[21] as number) & 0x0f) * 2 ** 32 + (((head[22] as number) << 24) >>> 0) + ((head[23] as number) << 16) + ((head[24] as number) << 8) + (head[25] as number);
}

/** Granule position of a page (0 on the header pages of Vorbis and Opus). */
const granuleIsZero = (page: Uint8Array): boolean => page.subarray(6, 14).every((b) => b === 0);

/** Header pages handed to the decoder together with the first audio page (one call sets the codec up). */
const MAX_HEADER_PAGES = 4;

/** FLAC decoders kept between files: a decoder's setup costs more than a short utterance's decoding. */
const idleFlac: FLACDecoder[] = [];
const MAX_IDLE_FLAC = 2;

/** Decoder output with its errors checked: any error in a frame refuses the file. */
function checked(out: PlanarAudio & { errors?: { message: string }[] }): PlanarAudio {
  if (out.errors && out.errors.length > 0) throw new WasmDecodeError(out.errors[0]?.message ?? 'decode error');
  return out;
}

/**
 * Decodes the file at `path` as `codec`, handing each decoder call's samples to `onAudio` (which may throw
 * to stop, e.g. past a length limit). Throws WasmDecodeError when the decoder reports an error or throws;
 * errors of `onAudio` and of reading the file pass through. The decoder is freed whatever happens.
 */
export async function decodeWithWasm(
  path: string,
  codec: WasmCodec,
  onAudio: (audio: PlanarAudio) => void | Promise<void>,
  signal?: AbortSignal,
  io: FileIo = threadPoolIo,
): Promise<void> {
  let last = performance.now();
  // Every decoder call goes through here: its errors are the file's, and the event loop gets its turns.
  const call = async (work: () => Promise<PlanarAudio & { errors?: { message: string }[] }> | (PlanarAudio & { errors?: { message: string }[] })) => {
    let out: PlanarAudio;
    try {
      out = checked(await work());
    } catch (err) {
      throw err instanceof WasmDecodeError ? err : new WasmDecodeError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    if (out.samplesDecoded > 0) await onAudio(out);
    if (performance.now() - last > TURN_MS) {
      await nextTurn();
      signal?.throwIfAborted();
      last = performance.now();
    }
  };

  if (codec === 'flac') {
    const decoder = idleFlac.pop() ?? new FLACDecoder();
    let reusable = false;
    try {
      await decoder.ready;
      const parser = new CodecParser('audio/flac', { enableFrameCRC32: false, enableLogging: false });
      const sequence = flacSequence();
      let declared: number | undefined;
      let first: Uint8Array | undefined;
      const decode = async (frame: CodecFrame) => {
        // Past the declared length come only the sentinel frame below (or stray bytes): not decoded.
        if (declared && sequence.samples() >= declared) return;
        first ??= Uint8Array.from(frame.data);
        await call(() => {
          sequence.next(frame);
          return decoder.decodeFrames([frame.data]);
        });
      };
      for await (const chunk of chunks(io, path, READ_BYTES, signal)) {
        declared ??= flacDeclaredSamples(chunk);
        for (const frame of frames(parser.parseChunk(chunk))) await decode(frame);
      }
      // codec-parser ends a frame where it finds the next valid frame header, and at the end of the input it
      // sometimes drops the last frame (seen on sox's FLAC: 3,584 samples short of STREAMINFO's 89,600). A
      // copy of the first frame after the file gives the last frame its next header; the copy itself lies past
      // the declared length and is not decoded. Without a declared length there is nothing to stop at.
      if (declared && first) for (const frame of frames(parser.parseChunk(first))) await decode(frame);
      for (const frame of frames(parser.flush())) await decode(frame);
      // The parser stops at bytes it cannot frame: a file whose frames end before its declared length is
      // damaged or cut short (the last frame may be shorter than its block size, hence "fewer").
      if (declared && sequence.samples() < declared) throw new WasmDecodeError('FLAC stream ends before its declared length');
      reusable = true;
    } finally {
      // A decoder that saw an error is not trusted with the next file.
      if (reusable && idleFlac.length < MAX_IDLE_FLAC) idleFlac.push(decoder);
      else decoder.free();
    }
    return;
  }

  if (codec === 'mp3') {
    const decoder = new MPEGDecoder();
    try {
      await decoder.ready;
      for await (const chunk of chunks(io, path, MP3_BYTES, signal)) {
        // mpg123 resynchronises over stray bytes and reports them as errors; the frame chain checked before
        // decoding (mpeg-frames.ts) is what refuses noise, so errors here do not refuse the file.
        await call(() => ({ ...decoder.decode(chunk), errors: [] }));
      }
    } finally {
      decoder.free();
    }
    return;
  }

  const decoder = codec === 'vorbis' ? new OggVorbisDecoder() : new OggOpusDecoder({ speechQualityEnhancement: 'none' });
  try {
    await decoder.ready;
    const splitter = oggPageSplitter();
    let header: Uint8Array[] | undefined = [];
    for await (const chunk of chunks(io, path, READ_BYTES, signal)) {
      for (const page of splitter.push(chunk)) {
        // Header pages go in with the first audio page: on its own, a header page returns thousands of empty
        // channels from the Vorbis decoder, which costs more than decoding a short file.
        if (header && granuleIsZero(page) && header.length < MAX_HEADER_PAGES) {
          header.push(page);
          continue;
        }
        const input = header ? Buffer.concat([...header, page]) : page;
        header = undefined;
        await call(() => decoder.decode(input));
      }
    }
    const rest = header;
    if (rest?.length) await call(() => decoder.decode(Buffer.concat(rest)));
    await call(() => decoder.flush());
  } finally {
    decoder.free();
  }
}
