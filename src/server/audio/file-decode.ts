/**
 * Decodes one recorded audio file of a corpus (WAV, FLAC, MP3, M4A, OGG Vorbis/Opus) to mono PCM16 at its
 * own rate, at most 48 kHz (DESIGN §10.2). PCM WAV is read in-process; everything else goes through ffmpeg
 * with the demuxer forced from the sniffed magic bytes, so ffmpeg never probes a hostile file into a
 * playlist or any format that opens other files. Files are decoded in batches, one ffmpeg run for many
 * inputs: starting ffmpeg (a 70 MB static binary) and forking it from a server of 150 MB RSS cost more
 * than decoding a typical utterance (measured: 16 FLAC files in one run 0.15 s, in sixteen runs 0.7 s;
 * a fork at 95 MB RSS 13 ms, at 395 MB 100 ms). Each output stops at the length limit (`-t`), so a long
 * file is never decoded whole; a batch that fails is decoded again file by file to name the bad one.
 */
import { spawn } from 'node:child_process';
import { open, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ffmpegPath } from './decode.js';
import { sniffAudioFormat } from './sniff.js';
import { decodeWavToPcm16 } from './wav.js';
import { resamplePcm16 } from './resample.js';

/** Highest rate kept; higher rates are resampled to it (DESIGN §10.2). */
export const MAX_KEPT_RATE = 48_000;

/** Why a file was refused: not audio we can decode, longer than allowed, or bigger than allowed. */
export class FileDecodeError extends Error {
  constructor(
    readonly reason: 'corrupt' | 'too_long' | 'too_big',
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

/** Interleaved PCM16 averaged to one channel. */
function downmix(interleaved: Int16Array, channels: number): Int16Array {
  if (channels === 1) return interleaved;
  const frames = Math.floor(interleaved.length / channels);
  const mono = new Int16Array(frames);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += interleaved[f * channels + c]!;
    mono[f] = Math.round(sum / channels);
  }
  return mono;
}

/**
 * Runs ffmpeg on `path` as `demuxer`, reading its WAV output as it streams: the header gives rate and
 * channels, the samples are collected until the end or until they pass `maxSeconds`.
 */
function ffmpegDecode(path: string, demuxer: Demuxer, maxSeconds: number): Promise<{ pcm: Int16Array; sampleRate: number }> {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-threads', '1', '-protocol_whitelist', 'file,pipe', '-f', demuxer, '-i', `file:${resolve(path)}`];
  args.push('-vn', '-sn', '-map_metadata', '-1', '-fflags', '+bitexact', '-acodec', 'pcm_s16le', '-f', 'wav', 'pipe:1');
  return new Promise((done, fail) => {
    const child = spawn(ffmpegPath(), args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let header = Buffer.alloc(0);
    let format: { rate: number; channels: number } | undefined;
    let inData = false;
    const chunks: Buffer[] = [];
    let bytes = 0;
    let outcome: Error | undefined;
    const timer = setTimeout(() => stop(corrupt()), FFMPEG_TIMEOUT_MS);
    const stop = (err: Error) => {
      outcome ??= err;
      child.kill('SIGKILL');
    };
    child.on('error', (err) => stop((err as { code?: string }).code === 'ENOENT' ? new Error('Corpus decoding needs ffmpeg (@ffmpeg-installer/ffmpeg or ffmpeg on PATH)') : err));
    child.stdout.on('data', (chunk: Buffer) => {
      if (outcome) return;
      if (!inData) {
        header = Buffer.concat([header, chunk]);
        // RIFF header, then chunks: `fmt ` (channels, rate), maybe others, then `data` (the rest is samples).
        let at = 12;
        while (at + 8 <= header.length) {
          const id = header.toString('latin1', at, at + 4);
          const size = header.readUInt32LE(at + 4);
          if (id === 'data') {
            inData = true;
            chunk = header.subarray(at + 8);
            break;
          }
          if (at + 8 + size > header.length) return;
          if (id === 'fmt ') format = { channels: header.readUInt16LE(at + 10), rate: header.readUInt32LE(at + 12) };
          at += 8 + size + (size % 2);
        }
        if (!inData) return;
        if (!format || format.channels < 1 || format.rate < 1) return stop(corrupt());
      }
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes / (2 * format!.channels) > maxSeconds * format!.rate) stop(tooLong());
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (outcome) return fail(outcome);
      if (code !== 0 || !format || bytes < 2 * format.channels) return fail(corrupt());
      const all = Buffer.concat(chunks, bytes);
      const samples = new Int16Array(all.buffer, all.byteOffset, Math.floor(bytes / 2));
      done({ pcm: downmix(samples.slice(), format.channels), sampleRate: format.rate });
    });
  });
}

/** Size check and format of a file, from its first bytes. */
async function probe(path: string, limits: FileDecodeLimits): Promise<Demuxer> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    if (size > limits.maxBytes) throw new FileDecodeError('too_big', 'audio file too big');
    const head = Buffer.alloc(64);
    const { bytesRead } = await fh.read(head, 0, 64, 0);
    return demuxerFor(head.subarray(0, bytesRead)) ?? (() => { throw corrupt(); })();
  } finally {
    await fh.close();
  }
}

/** PCM and float WAV read in-process, or undefined for a WAV only ffmpeg reads (µ-law, ADPCM, …). */
async function decodeWavInProcess(path: string): Promise<DecodedFile | undefined> {
  try {
    return decodeWavToPcm16(await readFile(path));
  } catch {
    return undefined;
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
 * Decodes one file under `limits`. Throws FileDecodeError: `too_big` past `maxBytes` (checked before
 * reading), `too_long` past `maxSeconds`, `corrupt` for anything not decodable as one of our formats.
 */
export async function decodeAudioFile(path: string, limits: FileDecodeLimits): Promise<DecodedFile> {
  const demuxer = await probe(path, limits);
  const decoded = (demuxer === 'wav' ? await decodeWavInProcess(path) : undefined) ?? (await ffmpegDecode(path, demuxer, limits.maxSeconds));
  return finish(decoded, limits);
}

/** One ffmpeg run decoding every input to its own mono PCM16 WAV, each cut at `maxSeconds` (a bit past it). */
function ffmpegBatch(inputs: { path: string; demuxer: Demuxer }[], outputs: string[], maxSeconds: number): Promise<boolean> {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-threads', '1', '-protocol_whitelist', 'file,pipe'];
  for (const i of inputs) args.push('-f', i.demuxer, '-i', `file:${resolve(i.path)}`);
  // A little past the limit, so a file longer than it comes out longer than it and is refused.
  const cut = (maxSeconds + 0.01).toFixed(3);
  outputs.forEach((out, k) => args.push('-map', `${k}:a:0`, '-ac', '1', '-acodec', 'pcm_s16le', '-map_metadata', '-1', '-t', cut, '-f', 'wav', `file:${resolve(out)}`));
  return new Promise((done) => {
    const child = spawn(ffmpegPath(), args, { stdio: ['ignore', 'ignore', 'ignore'] });
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
 * Decodes several files (a batch of a corpus) with one ffmpeg run for those that need it, writing its
 * outputs under `scratch` (an existing folder, emptied again), and hands each result to `onFile` as soon as
 * it is read — one decoded file in memory at a time. A failed run is retried file by file, so each error
 * names its own file. Errors other than a file's own (disk, spawn) reject.
 */
export async function decodeAudioFiles(
  paths: readonly string[],
  o: { scratch: string; limits: FileDecodeLimits },
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
    let kind: Demuxer;
    try {
      kind = await probe(path, o.limits);
    } catch (err) {
      if (!(err instanceof FileDecodeError)) throw err;
      await onFile(index, err);
      continue;
    }
    const wav = kind === 'wav' ? await decodeWavInProcess(path) : undefined;
    if (wav) await onFile(index, await attempt(() => finish(wav, o.limits)));
    else viaFfmpeg.push({ index, path, demuxer: kind });
  }
  if (viaFfmpeg.length === 0) return;
  const outputs = viaFfmpeg.map((_, k) => join(o.scratch, `${k}.wav`));
  try {
    const ok = await ffmpegBatch(viaFfmpeg, outputs, o.limits.maxSeconds);
    for (const [k, input] of viaFfmpeg.entries()) {
      const result = await attempt(async () => {
        if (!ok) return decodeAudioFile(input.path, o.limits);
        const decoded = await decodeWavInProcess(outputs[k]!);
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
