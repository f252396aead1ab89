/** The messages between the decoding pool (decode-pool.ts) and its worker threads (decode-worker.ts). */
import type { FileDecodeLimits } from './file-decode.js';

/** Decode the file at `path` and write it as a mono PCM16 WAV to `out`; or stop job `cancel`. */
export type DecodeRequest = { type: 'decode'; id: number; path: string; out: string; limits: FileDecodeLimits } | { type: 'cancel'; id: number };

/** How a file came out: written (its rate, frames and WAV bytes), refused, needing ffmpeg, or a failure of the worker's own. */
export type DecodeReply =
  | { id: number; type: 'decoded'; sampleRate: number; frames: number; bytes: number }
  | { id: number; type: 'refused'; reason: 'corrupt' | 'too_long' | 'too_big' | 'needs_ffmpeg'; message: string }
  | { id: number; type: 'ffmpeg' }
  | { id: number; type: 'failed'; message: string };
