/**
 * The operating system's ffmpeg (DESIGN §17.4: a maintained build with its distribution's security fixes;
 * no ffmpeg is bundled). Only what has no WebAssembly decoder here needs it: M4A/AAC, and WAV codecs such
 * as µ-law or ADPCM.
 */

/** DESIGN §17.4: what M4A audio gets where the operating system has no ffmpeg. */
export const M4A_NEEDS_FFMPEG = 'M4A needs ffmpeg (apt-get install ffmpeg)';

/** The ffmpeg program, looked up on PATH when it runs. */
export function ffmpegPath(): string {
  return 'ffmpeg';
}

/** The OS's ffprobe, beside its ffmpeg (Debian's `ffmpeg` package ships both). */
export function ffprobePath(): string {
  return 'ffprobe';
}
