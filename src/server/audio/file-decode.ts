/**
 * Decodes one recorded audio file of a corpus (WAV, FLAC, MP3, M4A, OGG Vorbis/Opus) to mono PCM16 at its
 * own rate, at most 48 kHz (DESIGN §10.2). DESIGN §17.4: PCM WAV is read in-process; FLAC, Ogg Vorbis,
 * Ogg Opus and MP3 are decoded by WebAssembly decoders (wasm-decode.ts), a frame or page at a time; only
 * M4A (and WAV encodings we do not read, such as µ-law or ADPCM) goes to the operating system's ffmpeg —
 * none is bundled — and without one an M4A file is refused with `M4A needs ffmpeg (apt-get install
 * ffmpeg)`. ffmpeg runs with the demuxer forced from the sniffed magic bytes, so it never probes a hostile
 * file into a playlist or any format that opens other files, and decodes many files per run (its start-up
 * costs more than a short utterance's decoding); each output stops at the length limit (`-t`), and a batch
 * that fails is decoded again file by file to name the bad one. A file declaring more than 8 channels or
 * more than 192 kHz is refused from its header before anything decodes it; every path mixes down to mono
 * first, and rates above 48 kHz are resampled as the samples come, a chunk at a time, so memory holds the
 * 48 kHz result only.
 */
import { spawn } from 'node:child_process';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ffmpegPath, ffprobePath, M4A_NEEDS_FFMPEG } from './ffmpeg.js';
import { hasMpegFrameChain, id3v2Length } from './mpeg-frames.js';
import { sniffAudioFormat } from './sniff.js';
import { decodeWithWasm, oggCodec, WasmDecodeError, type WasmCodec } from './wasm-decode.js';
import { decodeWavToPcm16, float32ToPcm16, parseWav, pcm16WithWavRoom } from './wav.js';
import { resamplePcm16, StreamResampler } from './resample.js';
import { threadPoolIo, type FileIo } from './file-io.js';

/** Highest rate kept; higher rates are resampled to it (DESIGN §10.2). */
export const MAX_KEPT_RATE = 48_000;

/** DESIGN §17.4: the most channels and the highest rate a file may declare. */
export const MAX_INPUT = Object.freeze({ channels: 8, sampleRate: 192_000 });

/** Why a file was refused: not audio we can decode, longer than allowed, or bigger than allowed. */
export class FileDecodeError extends Error {
  constructor(
    readonly reason: 'corrupt' | 'too_long' | 'too_big' | 'needs_ffmpeg',
    message: string,
  ) {
    super(message);
    this.name = 'FileDecodeError';
  }
}

/** Limits of one file. */
export interface FileDecodeLimits {
  maxBytes: number;
  maxSeconds: number;
}

/** A decoded file: mono PCM16 at `sampleRate` (≤ 48 kHz). */
export interface DecodedFile {
  pcm: Int16Array;
  sampleRate: number;
}

type Demuxer = 'wav' | 'flac' | 'ogg' | 'mp3' | 'mov';

/** The ffmpeg demuxer for a file's first bytes, or undefined for anything that is not one of our formats. */
export function demuxerFor(head: Uint8Array): Demuxer | undefined {
  const tag = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1', 0, 4);
  if (tag === 'fLaC') return 'flac';
  if (tag === 'OggS') return 'ogg';
  const format = sniffAudioFormat(head);
  if (format === 'wav') return 'wav';
  if (format === 'mp3') return 'mp3';
  if (format === 'm4a') return 'mov';
  return undefined;
}

const corrupt = () => new FileDecodeError('corrupt', 'unsupported or corrupt audio');
const tooLong = () => new FileDecodeError('too_long', 'audio longer than the limit');

/** Longest one ffmpeg run may take; 25 MB of any of our codecs decodes in seconds. */
const FFMPEG_TIMEOUT_MS = 120_000;

/**
 * Mono samples gathered at their own rate, or resampled to 48 kHz as they arrive when the rate is higher
 * (the whole input at, say, 192 kHz is never held). Past `maxSeconds` of input it throws `too_long`.
 */
class MonoSink {
  private readonly parts: Int16Array[] = [];
  private frames = 0;

  private constructor(
    private readonly rate: number,
    private readonly maxSeconds: number,
    private readonly resampler: StreamResampler | undefined,
  ) {}

  static async create(rate: number, maxSeconds: number): Promise<MonoSink> {
    if (!(rate >= 1 && rate <= MAX_INPUT.sampleRate)) throw corrupt();
    return new MonoSink(rate, maxSeconds, rate > MAX_KEPT_RATE ? await StreamResampler.create(rate, MAX_KEPT_RATE) : undefined);
  }

  /** Takes the next samples (kept as they are, or resampled: the caller hands them over). */
  push(samples: Int16Array): void {
    this.frames += samples.length;
    if (this.frames > this.maxSeconds * this.rate) {
      this.close();
      throw tooLong();
    }
    this.parts.push(this.resampler ? this.resampler.push(samples) : samples);
  }

  /** The decoded file, or `corrupt` when no sample came. */
  finish(): DecodedFile {
    if (this.resampler) this.parts.push(this.resampler.end());
    if (this.frames === 0) throw corrupt();
    // With room for the WAV header a corpus stores it with (wav.ts `wavAroundPcm`: no second copy).
    const pcm = pcm16WithWavRoom(this.parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of this.parts) {
      pcm.set(p, at);
      at += p.length;
    }
    return { pcm, sampleRate: this.resampler ? MAX_KEPT_RATE : this.rate };
  }

  close(): void {
    this.resampler?.close();
  }
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Int16 samples of little-endian bytes (an even count), in a new array. */
const int16Of = (bytes: Buffer): Int16Array => {
  const out = new Int16Array(bytes.length >> 1);
  if (littleEndian) new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 2));
  else for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2);
  return out;
};

/** Splits a byte stream into whole 16-bit samples, carrying an odd byte over to the next chunk. */
function sampleStream(): (chunk: Buffer) => Int16Array {
  let carry: Buffer | undefined;
  return (chunk) => {
    const bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
    const even = bytes.length & ~1;
    carry = even < bytes.length ? Buffer.from(bytes.subarray(even)) : undefined;
    return int16Of(bytes.subarray(0, even));
  };
}

/** Longest wait for ffprobe to read a file's stream header. */
const FFPROBE_TIMEOUT_MS = 20_000;

/**
 * DESIGN §17.4's bounds for a file ffmpeg decodes: ffmpeg mixes down as it decodes (`-ac 1`), so its output
 * cannot tell how many channels went in, and the first bytes need not say (an M4A's header may sit at its
 * end, a WAV's `fmt ` after kilobytes of other chunks). ffprobe reads the first audio stream's channels
 * and rate: past 8 or 192 kHz the file is `corrupt`. Where there is no ffprobe, ffmpeg's own refusal stands.
 */
async function checkFfmpegInput(path: string, demuxer: Demuxer, signal?: AbortSignal): Promise<void> {
  const args = ['-v', 'error', '-protocol_whitelist', 'file', '-f', demuxer, '-select_streams', 'a:0', '-show_entries', 'stream=channels,sample_rate', '-of', 'csv=p=0', `file:${resolve(path)}`];
  const out = await new Promise<string | undefined>((done) => {
    const child = spawn(ffprobePath(), args, { stdio: ['ignore', 'pipe', 'ignore'], signal, killSignal: 'SIGKILL' });
    const timer = setTimeout(() => child.kill('SIGKILL'), FFPROBE_TIMEOUT_MS);
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString('latin1')));
    child.on('error', () => done(undefined));
    child.on('close', (code) => {
      clearTimeout(timer);
      done(code === 0 ? text : '');
    });
  });
  signal?.throwIfAborted();
  if (out === undefined) return;
  const m = /^(\d+),(\d+)/.exec(out.trim());
  // No audio stream, or one ffprobe cannot read: ffmpeg would fail on it too.
  if (!m) throw corrupt();
  // ffprobe prints `sample_rate` before `channels` whatever the order asked for.
  if (outOfBounds({ channels: Number(m[2]), rate: Number(m[1]) })) throw corrupt();
}

/**
 * Runs ffmpeg on `path` as `demuxer`, mixed down to mono (`-ac 1`) and read as it streams: the WAV header
 * gives the rate, the samples go to a `MonoSink` until the end or until they pass `maxSeconds`.
 */
async function ffmpegDecode(path: string, demuxer: Demuxer, maxSeconds: number, signal?: AbortSignal): Promise<DecodedFile> {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-threads', '1', '-protocol_whitelist', 'file,pipe', '-f', demuxer, '-i', `file:${resolve(path)}`];
  args.push('-vn', '-sn', '-map_metadata', '-1', '-fflags', '+bitexact', '-ac', '1', '-acodec', 'pcm_s16le', '-f', 'wav', 'pipe:1');
  const child = spawn(ffmpegPath(), args, { stdio: ['ignore', 'pipe', 'ignore'], signal, killSignal: 'SIGKILL' });
  const closed = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  let spawnError: Error | undefined;
  child.on('error', (err) => {
    if ((err as { code?: string }).code !== 'ENOENT') spawnError ??= err;
    else spawnError ??= demuxer === 'mov' ? new FileDecodeError('needs_ffmpeg', M4A_NEEDS_FFMPEG) : corrupt();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), FFMPEG_TIMEOUT_MS);
  let sink: MonoSink | undefined;
  try {
    let header = Buffer.alloc(0);
    const samples = sampleStream();
    for await (const raw of child.stdout as AsyncIterable<Buffer>) {
      let chunk = raw;
      if (!sink) {
        header = Buffer.concat([header, chunk]);
        if (header.length > 64 * 1024) throw corrupt();
        const found = wavDataStart(header);
        if (!found) continue;
        if (found.channels !== 1) throw corrupt();
        sink = await MonoSink.create(found.rate, maxSeconds);
        chunk = header.subarray(found.offset);
      }
      sink.push(samples(chunk));
    }
    const code = await closed;
    if (spawnError) throw spawnError;
    signal?.throwIfAborted();
    if (code !== 0 || !sink) throw corrupt();
    return sink.finish();
  } catch (err) {
    child.kill('SIGKILL');
    sink?.close();
    if (err instanceof FileDecodeError || signal?.aborted) throw signal?.aborted ? signal.reason : err;
    throw spawnError ?? err;
  } finally {
    clearTimeout(timer);
  }
}

/** Where a WAV's samples start, with its channels and rate, once `header` holds the `data` chunk's start. */
function wavDataStart(header: Buffer): { offset: number; channels: number; rate: number } | undefined {
  let format: { channels: number; rate: number } | undefined;
  // RIFF header, then chunks: `fmt ` (channels, rate), maybe others, then `data` (the rest is samples).
  let at = 12;
  while (at + 8 <= header.length) {
    const id = header.toString('latin1', at, at + 4);
    const size = header.readUInt32LE(at + 4);
    if (id === 'data') return format ? { offset: at + 8, ...format } : undefined;
    if (at + 8 + size > header.length) return undefined;
    if (id === 'fmt ' && size >= 8) format = { channels: header.readUInt16LE(at + 10), rate: header.readUInt32LE(at + 12) };
    at += 8 + size + (size % 2);
  }
  return undefined;
}

/** Bytes of a file's head read for its format and declared channels and rate. */
const HEAD_BYTES = 4096;

/**
 * Channels and rate a FLAC, Ogg (Vorbis, Opus) or WAV head declares, or undefined where the head does not
 * say (MP3 and AAC are at most 48/96 kHz by their format; ffmpeg mixes their channels down).
 */
export function declaredFormat(head: Buffer): { channels: number; rate: number | undefined } | undefined {
  const tag = head.toString('latin1', 0, 4);
  if (tag === 'fLaC' && head.length >= 8 + 18 && (head[4]! & 0x7f) === 0) {
    // STREAMINFO: 20 bits of rate, 3 bits of channels − 1, after 10 bytes of block and frame sizes.
    const rate = (head[18]! << 12) | (head[19]! << 4) | (head[20]! >> 4);
    return { channels: ((head[20]! >> 1) & 0x07) + 1, rate };
  }
  if (tag === 'OggS' && head.length >= 27) {
    const start = 27 + head[26]!;
    const packet = head.subarray(start);
    if (packet.toString('latin1', 0, 7) === '\x01vorbis' && packet.length >= 16) return { channels: packet[11]!, rate: packet.readUInt32LE(12) };
    // Opus always decodes at 48 kHz; its header's rate is only the original's, for information.
    if (packet.toString('latin1', 0, 8) === 'OpusHead' && packet.length >= 10) return { channels: packet[9]!, rate: undefined };
    return undefined;
  }
  if (tag === 'RIFF' && head.toString('latin1', 8, 12) === 'WAVE') {
    let at = 12;
    while (at + 16 <= head.length) {
      const size = head.readUInt32LE(at + 4);
      if (head.toString('latin1', at, at + 4) === 'fmt ') return { channels: head.readUInt16LE(at + 10), rate: head.readUInt32LE(at + 12) };
      at += 8 + size + (size % 2);
    }
  }
  return undefined;
}

/** True when a declared format is past DESIGN §17.4's bounds (or declares no channel or rate at all). */
const outOfBounds = (f: { channels: number; rate: number | undefined }): boolean =>
  f.channels < 1 || f.channels > MAX_INPUT.channels || (f.rate !== undefined && (f.rate < 1 || f.rate > MAX_INPUT.sampleRate));

/** How a file is decoded: its ffmpeg demuxer, and the WebAssembly codec that decodes it instead when there is one. */
interface Route {
  demuxer: Demuxer;
  codec?: WasmCodec;
}

/** Bytes an MP3's first frames must chain within, after its ID3v2 tag (see mpeg-frames.ts). */
const MP3_SEARCH_BYTES = 64 * 1024 + 8 * 1024;

/** Size check and format of a file, from its first bytes. */
async function probe(path: string, limits: FileDecodeLimits, io: FileIo = threadPoolIo): Promise<Route> {
  const fh = await io.open(path);
  try {
    const size = await fh.size();
    if (size > limits.maxBytes) throw new FileDecodeError('too_big', 'audio file too big');
    const head = Buffer.alloc(HEAD_BYTES);
    const bytesRead = await fh.read(head, HEAD_BYTES, 0);
    const demuxer = demuxerFor(head.subarray(0, 64));
    if (!demuxer) throw corrupt();
    const declared = declaredFormat(head.subarray(0, bytesRead));
    if (declared && outOfBounds(declared)) throw corrupt();
    if (demuxer === 'flac') return { demuxer, codec: 'flac' };
    if (demuxer === 'ogg') {
      const codec = oggCodec(head.subarray(0, bytesRead));
      if (!codec) throw corrupt();
      return { demuxer, codec };
    }
    if (demuxer === 'mp3') {
      // mpg123 resynchronises over anything: a real MP3's frames chain from its start (mpeg-frames.ts).
      const span = Buffer.alloc(Math.min(size, id3v2Length(head) + MP3_SEARCH_BYTES));
      const n = await fh.read(span, span.length, 0);
      if (!hasMpegFrameChain(span.subarray(0, n))) throw corrupt();
      return { demuxer, codec: 'mp3' };
    }
    return { demuxer };
  } finally {
    await fh.close();
  }
}

/** Averages planar float channels into mono PCM16 (clipped and rounded as `float32ToPcm16`). */
function monoPcm16(channels: Float32Array[], length: number): Int16Array {
  const k = channels.length;
  // Most corpora are mono: the same samples, without the sum and the division of every sample.
  if (k === 1) return float32ToPcm16(channels[0]!.subarray(0, length));
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    let sum = 0;
    for (let c = 0; c < k; c++) sum += channels[c]![i]!;
    const s = sum / k;
    out[i] = s >= 1 ? 32767 : s <= -1 ? -32768 : Math.round(s * 32768);
  }
  return out;
}

/**
 * Decodes a FLAC, Ogg or MP3 file with its WebAssembly decoder into a `MonoSink` (mixed down as each
 * decoder call returns, resampled as it goes when above 48 kHz, stopped past `maxSeconds`). A decoder
 * error, more than 8 channels, a rate past 192 kHz or a rate that changes mid-file → `corrupt`.
 */
async function wasmDecodeFile(path: string, codec: WasmCodec, maxSeconds: number, signal?: AbortSignal, io: FileIo = threadPoolIo): Promise<DecodedFile> {
  let sink: MonoSink | undefined;
  let rate = 0;
  try {
    await decodeWithWasm(
      path,
      codec,
      async (audio) => {
        const channels = audio.channelData.length;
        if (channels < 1 || channels > MAX_INPUT.channels) throw corrupt();
        if (!sink) {
          rate = audio.sampleRate;
          sink = await MonoSink.create(rate, maxSeconds);
        } else if (audio.sampleRate !== rate) throw corrupt();
        sink.push(monoPcm16(audio.channelData, audio.samplesDecoded));
      },
      signal,
      io,
    );
    if (!sink) throw corrupt();
    return sink.finish();
  } catch (err) {
    sink?.close();
    if (err instanceof WasmDecodeError) throw corrupt();
    throw err;
  }
}

/** Decodes one file that needs no ffmpeg, or undefined when it does (M4A, a WAV only ffmpeg reads). */
async function decodeWithoutFfmpeg(path: string, route: Route, limits: FileDecodeLimits, signal?: AbortSignal, io: FileIo = threadPoolIo): Promise<DecodedFile | undefined> {
  if (route.codec) return finish(await wasmDecodeFile(path, route.codec, limits.maxSeconds, signal, io), limits);
  const wav = route.demuxer === 'wav' ? await decodeWavInProcess(path, io) : undefined;
  return wav && finish(wav, limits);
}

/** PCM and float WAV read in-process, or undefined for a WAV only ffmpeg reads (µ-law, ADPCM, …). */
async function decodeWavInProcess(path: string, io: FileIo): Promise<DecodedFile | undefined> {
  let buf: Buffer;
  try {
    buf = await io.readFile(path);
    const info = parseWav(buf);
    if (outOfBounds({ channels: info.channels, rate: info.sampleRate })) throw corrupt();
  } catch (err) {
    if (err instanceof FileDecodeError) throw err;
    return undefined;
  }
  try {
    return decodeWavToPcm16(buf);
  } catch {
    return undefined;
  }
}

/**
 * Reads a mono PCM16 WAV that ffmpeg wrote, a megabyte at a time, into a `MonoSink` (resampled as it is
 * read when above 48 kHz): undefined when it is no such file.
 */
async function readDecodedWav(path: string, maxSeconds: number): Promise<DecodedFile | undefined> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch {
    return undefined;
  }
  let sink: MonoSink | undefined;
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(head, 0, HEAD_BYTES, 0);
    const found = wavDataStart(head.subarray(0, bytesRead));
    if (!found || found.channels !== 1) return undefined;
    sink = await MonoSink.create(found.rate, maxSeconds);
    const samples = sampleStream();
    const chunk = Buffer.alloc(1024 * 1024);
    for (let at = found.offset; ; ) {
      const { bytesRead: n } = await fh.read(chunk, 0, chunk.length, at);
      if (n === 0) break;
      sink.push(samples(chunk.subarray(0, n)));
      at += n;
    }
    return sink.finish();
  } catch (err) {
    sink?.close();
    throw err;
  } finally {
    await fh.close();
  }
}

/** The limit, emptiness and rate rules applied to decoded audio. */
async function finish(decoded: DecodedFile, limits: FileDecodeLimits): Promise<DecodedFile> {
  if (decoded.pcm.length > limits.maxSeconds * decoded.sampleRate) throw tooLong();
  if (decoded.pcm.length === 0) throw corrupt();
  if (decoded.sampleRate > MAX_KEPT_RATE) {
    return { pcm: await resamplePcm16(decoded.pcm, decoded.sampleRate, MAX_KEPT_RATE), sampleRate: MAX_KEPT_RATE };
  }
  return decoded;
}

/**
 * Decodes one file without ffmpeg (what a decoding worker thread runs, reading with `io`): undefined when
 * the file needs it (M4A, a WAV only ffmpeg reads). Throws FileDecodeError as `decodeAudioFile`.
 */
export async function decodeAudioFileInProcess(path: string, limits: FileDecodeLimits, signal?: AbortSignal, io: FileIo = threadPoolIo): Promise<DecodedFile | undefined> {
  return decodeWithoutFfmpeg(path, await probe(path, limits, io), limits, signal, io);
}

/**
 * Decodes one file under `limits`. Throws FileDecodeError: `too_big` past `maxBytes` (checked before
 * reading), `too_long` past `maxSeconds`, `corrupt` for anything not decodable as one of our formats.
 */
export async function decodeAudioFile(path: string, limits: FileDecodeLimits, signal?: AbortSignal): Promise<DecodedFile> {
  const route = await probe(path, limits);
  const decoded = await decodeWithoutFfmpeg(path, route, limits, signal);
  if (decoded) return decoded;
  await checkFfmpegInput(path, route.demuxer, signal);
  return finish(await ffmpegDecode(path, route.demuxer, limits.maxSeconds, signal), limits);
}

/** One ffmpeg run decoding every input to its own mono PCM16 WAV, each cut at `maxSeconds` (a bit past it). */
function ffmpegBatch(inputs: { path: string; demuxer: Demuxer }[], outputs: string[], maxSeconds: number, signal?: AbortSignal): Promise<boolean> {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-threads', '1', '-protocol_whitelist', 'file,pipe'];
  for (const i of inputs) args.push('-f', i.demuxer, '-i', `file:${resolve(i.path)}`);
  // A little past the limit, so a file longer than it comes out longer than it and is refused.
  const cut = (maxSeconds + 0.01).toFixed(3);
  outputs.forEach((out, k) => args.push('-map', `${k}:a:0`, '-ac', '1', '-acodec', 'pcm_s16le', '-map_metadata', '-1', '-t', cut, '-f', 'wav', `file:${resolve(out)}`));
  return new Promise((done) => {
    const child = spawn(ffmpegPath(), args, { stdio: ['ignore', 'ignore', 'ignore'], signal, killSignal: 'SIGKILL' });
    const timer = setTimeout(() => child.kill('SIGKILL'), FFMPEG_TIMEOUT_MS * Math.max(1, inputs.length / 4));
    child.on('error', () => done(false));
    child.on('close', (code) => {
      clearTimeout(timer);
      done(code === 0);
    });
  });
}

/** What `decodeAudioFiles` hands over per file: the decoded audio, or why the file was refused. */
export type FileResult = DecodedFile | FileDecodeError;

/**
 * Decodes several files (a batch of a corpus): WAV and the WebAssembly codecs one after another in this
 * process, and the files that need ffmpeg (M4A) with one ffmpeg run for them all, writing its
 * outputs under `scratch` (an existing folder, emptied again), and hands each result to `onFile` as soon as
 * it is read — one decoded file in memory at a time. A failed run is retried file by file, so each error
 * names its own file. Errors other than a file's own (disk, spawn) reject.
 */
export async function decodeAudioFiles(
  paths: readonly string[],
  o: { scratch: string; limits: FileDecodeLimits; signal?: AbortSignal },
  onFile: (index: number, result: FileResult) => Promise<void>,
): Promise<void> {
  const attempt = async (work: () => Promise<DecodedFile>): Promise<FileResult> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof FileDecodeError) return err;
      throw err;
    }
  };
  const viaFfmpeg: { index: number; path: string; demuxer: Demuxer }[] = [];
  for (const [index, path] of paths.entries()) {
    o.signal?.throwIfAborted();
    let route: Route;
    try {
      route = await probe(path, o.limits);
    } catch (err) {
      if (!(err instanceof FileDecodeError)) throw err;
      await onFile(index, err);
      continue;
    }
    let decoded: DecodedFile | FileDecodeError | undefined;
    try {
      decoded = await decodeWithoutFfmpeg(path, route, o.limits, o.signal);
    } catch (err) {
      if (!(err instanceof FileDecodeError)) throw err;
      decoded = err;
    }
    if (decoded) {
      await onFile(index, decoded);
      continue;
    }
    try {
      await checkFfmpegInput(path, route.demuxer, o.signal);
    } catch (err) {
      if (!(err instanceof FileDecodeError)) throw err;
      await onFile(index, err);
      continue;
    }
    viaFfmpeg.push({ index, path, demuxer: route.demuxer });
  }
  if (viaFfmpeg.length === 0) return;
  const outputs = viaFfmpeg.map((_, k) => join(o.scratch, `${k}.wav`));
  try {
    const ok = await ffmpegBatch(viaFfmpeg, outputs, o.limits.maxSeconds, o.signal);
    for (const [k, input] of viaFfmpeg.entries()) {
      o.signal?.throwIfAborted();
      const result = await attempt(async () => {
        if (!ok) return decodeAudioFile(input.path, o.limits, o.signal);
        const decoded = await readDecodedWav(outputs[k]!, o.limits.maxSeconds);
        if (!decoded) throw corrupt();
        return finish(decoded, o.limits);
      });
      await rm(outputs[k]!, { force: true });
      await onFile(input.index, result);
    }
  } finally {
    await Promise.all(outputs.map((out) => rm(out, { force: true })));
  }
}
