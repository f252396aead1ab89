/**
 * Decodes one uploaded or fetched audio file (WAV, MP3, M4A) to mono PCM16 at its own
 * rate (at most 48 kHz), the one form every recognizer adapter starts from. The format comes from the
 * bytes (`sniffAudioFormat`). The file goes through the decoder corpora use (`file-decode.ts`): the
 * WebAssembly decoders a frame at a time with the event loop's turns between, mixed down as they go, and
 * stopped past `MAX_FILE_SECONDS` (DESIGN §17.1: a 25 MB file of low-bitrate MP3 holds hours, which decoded
 * whole in one call took the service 580 MB over idle and stalled it for 2 s); M4A through the OS's ffmpeg.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeAudioFile, FileDecodeError } from './file-decode.js';
import { M4A_NEEDS_FFMPEG } from './ffmpeg.js';
import type { Pcm16Audio } from './wav.js';
import { sniffAudioFormat, type AudioFormat } from './sniff.js';

export { ffmpegPath, M4A_NEEDS_FFMPEG } from './ffmpeg.js';
export { sniffAudioFormat, type AudioFormat } from './sniff.js';

/**
 * Longest audio one file may hold for the STT routes and `POST /v1/audio`: decoded it is at most 115 MB
 * (mono PCM16 at 48 kHz), twice that while its last slice is joined, and the recognisers' 16 kHz copy
 * beside it: within DESIGN §17.1's 400 MB (30 minutes of 48 kHz MP3 took an upload to 363 MB over idle).
 * Longer recordings are a corpus's recorded calls (DESIGN §16.5: up to 4 hours).
 */
export const MAX_FILE_SECONDS = 20 * 60;

/** Mono PCM16 audio with its rate and length, ready for resampling and recognizers. */
export interface DecodedAudio extends Pcm16Audio {
  durationSeconds: number;
  format: AudioFormat;
}

/** Why bytes could not be decoded: not one of our formats, undecodable, too long, or M4A without ffmpeg. */
export class AudioDecodeError extends Error {
  constructor(
    message: string,
    readonly reason: 'unsupported' | 'corrupt' | 'too_long' | 'needs_ffmpeg',
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'AudioDecodeError';
  }
}

/** Decodes WAV (any PCM width, float, µ-law…, any rate, channels averaged), MP3 or M4A to mono PCM16. */
export async function decodeAudio(buf: Uint8Array, signal?: AbortSignal): Promise<DecodedAudio> {
  const format = sniffAudioFormat(buf);
  if (!format) throw new AudioDecodeError('Unsupported audio format: expected WAV, MP3 or M4A', 'unsupported');
  // The decoders read files (ffmpeg needs one to seek an M4A's index): a private folder, removed after.
  const dir = await mkdtemp(join(tmpdir(), 'voxctl-decode-'));
  try {
    const path = join(dir, `input.${format}`);
    await writeFile(path, buf, { mode: 0o600 });
    const { pcm, sampleRate } = await decodeAudioFile(path, { maxBytes: buf.byteLength, maxSeconds: MAX_FILE_SECONDS }, signal);
    return { pcm, sampleRate, durationSeconds: pcm.length / sampleRate, format };
  } catch (err) {
    if (!(err instanceof FileDecodeError)) throw err;
    if (err.reason === 'needs_ffmpeg') throw new AudioDecodeError(M4A_NEEDS_FFMPEG, 'needs_ffmpeg', { cause: err });
    if (err.reason === 'too_long') throw new AudioDecodeError(`Audio longer than ${MAX_FILE_SECONDS / 60} minutes: a longer recording goes in a corpus of recorded calls`, 'too_long', { cause: err });
    throw new AudioDecodeError(`Invalid ${format.toUpperCase()} file: unsupported or corrupt audio`, 'corrupt', { cause: err });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
