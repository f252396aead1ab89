/**
 * Decodes uploaded or fetched audio (WAV, MP3, M4A) to mono PCM16 at its own rate, the one form every
 * recognizer adapter starts from. The format comes from the bytes (`sniffAudioFormat`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { MPEGDecoder } from 'mpg123-decoder';
import { decodeWavToPcm16, float32ToPcm16, WavFormatError, type Pcm16Audio } from './wav.js';
import { sniffAudioFormat, type AudioFormat } from './sniff.js';
import { hasMpegFrameChain } from './mpeg-frames.js';

/** DESIGN §17.4: what M4A audio gets where the operating system has no ffmpeg. */
export const M4A_NEEDS_FFMPEG = 'M4A needs ffmpeg (apt-get install ffmpeg)';

export { sniffAudioFormat, type AudioFormat } from './sniff.js';

/** Mono PCM16 audio with its rate and length, ready for resampling and recognizers. */
export interface DecodedAudio extends Pcm16Audio {
  durationSeconds: number;
  format: AudioFormat;
}

/** Why bytes could not be decoded: not one of our formats, or a corrupt/undecodable file. */
export class AudioDecodeError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'AudioDecodeError';
  }
}

/** Longest M4A decode we wait for; 25 MB of AAC decodes in well under a second on one core. */
const FFMPEG_TIMEOUT_MS = 60_000;

/** Decodes WAV (any PCM width, float, any rate, channels averaged), MP3 or M4A to mono PCM16. */
export async function decodeAudio(buf: Uint8Array): Promise<DecodedAudio> {
  const format = sniffAudioFormat(buf);
  if (!format) throw new AudioDecodeError('Unsupported audio format: expected WAV, MP3 or M4A');
  const { pcm, sampleRate } = format === 'wav' ? decodeWav(buf) : format === 'mp3' ? await decodeMp3(buf) : await decodeM4a(buf);
  if (pcm.length === 0) throw new AudioDecodeError(`The ${format.toUpperCase()} file contains no audio samples`);
  return { pcm, sampleRate, durationSeconds: pcm.length / sampleRate, format };
}

function decodeWav(buf: Uint8Array): Pcm16Audio {
  try {
    return decodeWavToPcm16(buf);
  } catch (err) {
    if (err instanceof WavFormatError) throw new AudioDecodeError(`Invalid WAV file: ${err.message}`, { cause: err });
    throw err;
  }
}

async function decodeMp3(buf: Uint8Array): Promise<Pcm16Audio> {
  if (!hasMpegFrameChain(buf)) throw new AudioDecodeError('Invalid MP3 file: no run of MPEG audio frames');
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const out = decoder.decode(buf);
    if (out.samplesDecoded === 0 || out.channelData.length === 0) {
      throw new AudioDecodeError('Invalid MP3 file: no decodable frames');
    }
    return { pcm: float32ToPcm16(downmix(out.channelData, out.samplesDecoded)), sampleRate: out.sampleRate };
  } finally {
    decoder.free();
  }
}

/** Averages the channels of planar float audio into one channel. */
function downmix(channels: Float32Array[], length: number): Float32Array {
  if (channels.length === 1) return (channels[0] as Float32Array).subarray(0, length);
  const mono = new Float32Array(length);
  for (const ch of channels) for (let i = 0; i < length; i++) mono[i] = (mono[i] as number) + (ch[i] as number);
  for (let i = 0; i < length; i++) mono[i] = (mono[i] as number) / channels.length;
  return mono;
}

/**
 * The operating system's ffmpeg, looked up on PATH when it runs (DESIGN §17.4: a maintained build with its
 * distribution's security fixes; no ffmpeg is bundled). Only M4A needs it.
 */
export function ffmpegPath(): string {
  return 'ffmpeg';
}

async function decodeM4a(buf: Uint8Array): Promise<Pcm16Audio> {
  // MP4 files often keep their index (moov) at the end, which a pipe cannot seek to: use a temp file.
  const dir = await mkdtemp(join(tmpdir(), 'voxctl-m4a-'));
  try {
    const input = join(dir, 'input.m4a');
    await writeFile(input, buf);
    const result = await execa(
      ffmpegPath(),
      ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', input, '-vn', '-ac', '1', '-acodec', 'pcm_s16le', '-f', 'wav', 'pipe:1'],
      { encoding: 'buffer', timeout: FFMPEG_TIMEOUT_MS, reject: false, maxBuffer: 1024 * 1024 * 1024 },
    );
    if (result.failed && (result as { code?: string }).code === 'ENOENT') {
      throw new AudioDecodeError(M4A_NEEDS_FFMPEG);
    }
    if (result.failed) {
      const reason = Buffer.from(result.stderr).toString('utf8').trim().split('\n').pop() || result.shortMessage;
      throw new AudioDecodeError(`Invalid M4A file: ${reason}`);
    }
    return decodeWav(result.stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
