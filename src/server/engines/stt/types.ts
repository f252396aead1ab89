import type { Pcm16Audio } from '../../audio/wav.js';
import type { SttErrorCode } from '../../../shared/schemas/stt.js';

export type { SttErrorCode } from '../../../shared/schemas/stt.js';

/** Decoded input of one transcription: mono PCM16 at its own rate, and the same samples as a WAV file. */
export interface SttAudio extends Pcm16Audio {
  durationSeconds: number;
  /** 16-bit mono WAV of `pcm` at `sampleRate` (what most vendors are sent). */
  wav: Buffer;
}

/** Per-call options: the caller's cancellation (timeout) and an optional language (e.g. `en`, `en-US`). */
export interface TranscribeOptions {
  signal: AbortSignal;
  language?: string;
}

/** What a recognizer returns; latency is measured by the caller (DESIGN §6). */
export interface SttOutput {
  transcript: string;
  /** 0..1 when the recognizer gives or lets us derive one, else null. */
  confidence: number | null;
}

/** One recognizer behind the common interface (local engine or hosted vendor). */
export interface SttAdapter {
  /** Adapter kind, e.g. `openai`, `local-sphinx`. */
  readonly adapter: string;
  /** The model it asks for, when it has one. */
  readonly model: string | null;
  transcribe(audio: SttAudio, options: TranscribeOptions): Promise<SttOutput>;
  /** Whether it can run right now (binary/model present, credential set), without calling anyone. */
  check(): { ok: true } | { ok: false; detail: string };
}

/** A recognizer failure with one of the API's per-provider error codes (DESIGN §4.11). */
export class SttError extends Error {
  readonly code: SttErrorCode;

  constructor(code: SttErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'SttError';
    this.code = code;
  }
}
