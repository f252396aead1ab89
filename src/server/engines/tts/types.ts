import type { Pcm16Audio } from '../../audio/wav.js';

/** Which engine a catalogue speaker is bound to. */
export type TtsEngineName = 'flite' | 'espeak';

/**
 * The real engine voice behind one catalogue speaker (DESIGN §4.5, §6).
 * - flite: `voice` is slt | rms | awb | kal16; `variant` unused.
 * - espeak: `voice` is an eSpeak NG language/dialect id (e.g. `en-gb-scotland`), `variant` an eSpeak
 *   variant name (e.g. `f3`, `m1`, `klatt`) or undefined.
 * `pitch` and `rate` are relative offsets: pitch in semitones (-6..+6), rate as a factor (0.8..1.25).
 */
export interface VoiceBinding {
  engine: TtsEngineName;
  voice: string;
  variant?: string;
  pitch: number;
  rate: number;
}


/** One speech engine (runs inside a worker thread). */
export interface TtsEngine {
  readonly name: TtsEngineName;
  synthesize(text: string, voice: VoiceBinding): Promise<Pcm16Audio>;
}

/** What the service uses: the worker pool in front of the engines. */
export interface TtsPool {
  /** Synthesises `text` (split at sentence boundaries, pieces in parallel) with `voice`. */
  synthesize(text: string, voice: VoiceBinding): Promise<Pcm16Audio>;
  /** `ok` when every engine loaded in the workers. */
  status(): 'ok' | 'unavailable';
  close(): Promise<void>;
}
