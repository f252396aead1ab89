import type { Pcm16Audio } from '../../audio/wav.js';
import type { SttErrorCode } from '../../../shared/schemas/stt.js';

export type { SttErrorCode } from '../../../shared/schemas/stt.js';

/** Decoded input of one transcription: mono PCM16 at its own rate, and the same samples as a WAV file. */
export interface SttAudio extends Pcm16Audio {
  durationSeconds: number;
  /** 16-bit mono WAV of `pcm` at `sampleRate` (what most vendors are sent). */
  wav: Buffer;
}

/** Per-call options: the caller's cancellation (timeout), an optional language (e.g. `en`, `en-US`) and keyterms. */
export interface TranscribeOptions {
  signal: AbortSignal;
  language?: string;
  /**
   * Terms to favour (DESIGN §12.4), already checked by `normalizeKeyterms`; sent in the vendor's own
   * boosting parameter. An adapter whose `supportsKeyterms` is false ignores them.
   */
  keyterms?: readonly string[];
  /** Filled by a hosted adapter's HTTP client: when its first request left (DESIGN §15.4). */
  timing?: RequestTiming;
  /**
   * Ask for speaker labels as the vendor documents it (DESIGN §16.3); an adapter whose
   * `supportsDiarization` is not true ignores it and answers without `words`.
   */
  diarize?: boolean;
}

/** A recognised word (or a vendor's segment) with its speaker label and times in seconds (DESIGN §16.3). */
export interface SpeakerWord {
  text: string;
  start: number | null;
  end: number | null;
  /** The vendor's label as a string (`0`, `A`, `speaker_1`); null when the vendor gave none for this word. */
  speaker: string | null;
}

/**
 * When a recognition's first request to the vendor was handed to the HTTP client (`performance.now()`):
 * its latency runs from there, so the adapter's own work before it (loading the client, resampling,
 * encoding) is not counted as the vendor's. Unset for a local recogniser.
 */
export interface RequestTiming {
  sent?: number;
}

/** What a recognizer returns; latency is measured by the caller (DESIGN §6). */
export interface SttOutput {
  transcript: string;
  /** 0..1 when the recognizer gives or lets us derive one, else null. */
  confidence: number | null;
  /** With `diarize`, the words (or segments) with their speakers, in transcript order (DESIGN §16.3). */
  words?: SpeakerWord[];
}

/** One recognizer behind the common interface (local engine or hosted vendor). */
export interface SttAdapter {
  /** Adapter kind, e.g. `openai`, `local-sphinx`. */
  readonly adapter: string;
  /** The model it asks for, when it has one. */
  readonly model: string | null;
  /** Whether `keyterms` reach the recogniser (its vendor has a boosting parameter for this model). */
  readonly supportsKeyterms: boolean;
  /** Whether `diarize` is asked of the vendor and speaker labels come back (DESIGN §16.3); absent: no. */
  readonly supportsDiarization?: boolean;
  transcribe(audio: SttAudio, options: TranscribeOptions): Promise<SttOutput>;
  /** Whether it can run right now (binary/model present, credential set), without calling anyone. */
  check(): { ok: true } | { ok: false; detail: string };
  /** Ends what it keeps running between requests (a local engine's warm decoders), if anything. */
  close?(): Promise<void>;
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

/** A word of a streaming result with its place in the audio (ms from the stream's first sample). */
export interface StreamWord {
  word: string;
  startMs: number;
  endMs: number;
}

/**
 * What a live stream reports. `at` is the monotonic receipt time (`performance.now()` unless the caller
 * passes its own clock), read when the message arrived and before it was parsed. `partial` carries the
 * open segment's current text (replacing the previous partial), `final` that segment's settled text;
 * `message` is any other vendor message (metadata, speech-started, keep-alive answers): it shows the
 * stream is alive. `error` is followed by `close`.
 */
export type StreamEvent =
  | { type: 'partial' | 'final'; text: string; words?: StreamWord[]; at: number }
  | { type: 'message'; at: number }
  | { type: 'error'; error: SttError; at: number }
  | { type: 'close'; at: number };

/** How one live stream is opened. */
export interface StreamOptions {
  /** Rate of the 16-bit mono PCM that will be sent (the capability's `sampleRate`). */
  sampleRate: number;
  language?: string;
  /** Words to favour, where the vendor takes them (Deepgram `keyterm`, AssemblyAI `keyterms_prompt`). */
  keyterms?: string[];
  /** Clock of the receipt times (default `performance.now`). */
  now?: () => number;
  /** Ends the handshake when it aborts. */
  signal?: AbortSignal;
}

/** An open live stream: audio in, events out (through the listener given to `open`). */
export interface SttStream {
  /** Sends one frame of 16-bit little-endian mono PCM. */
  send(frame: Buffer): void;
  /** No more audio: closes the stream as the vendor documents (results still arrive, then `close`). */
  end(): void;
  /** Drops the connection now (no more events). */
  abort(): void;
}

/** A provider's live recognition, beside its batch `transcribe`. */
export interface StreamingCapability {
  /** PCM rate the provider is sent (the caller resamples to it). */
  readonly sampleRate: number;
  /** Model asked for when streaming (a binding's `streaming_model`, else its `model`). */
  readonly model: string | null;
  /** Connects; resolves once the vendor accepted the stream, rejects with an `SttError` when it refused. */
  open(options: StreamOptions, onEvent: (event: StreamEvent) => void): Promise<SttStream>;
}
