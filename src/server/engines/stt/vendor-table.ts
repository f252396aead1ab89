/**
 * What differs between the hosted vendors apart from their wire format: public endpoint, the audio each
 * accepts, and whether it works as submit-and-poll. One table, so that docs/stt-providers.md and the
 * adapters cannot disagree; each figure's source is cited there.
 */
import type { AdapterKind } from './bindings.js';

/** Hosted vendor adapters (every adapter but the local recognizer). */
export type VendorKind = Exclude<AdapterKind, 'local-sphinx'>;

/** Audio a vendor takes; absent bounds are not enforced by us (the vendor's are far beyond our 25 MB input). */
export interface AudioLimits {
  minSeconds?: number;
  maxSeconds?: number;
  /** Size of the WAV we send. */
  maxBytes?: number;
}

/**
 * The vendor's boosting parameter and the bounds it documents beyond ours (1..100 terms of 1..50
 * characters); a term outside them is refused before the vendor is called. Sources in docs/stt-providers.md.
 */
export interface KeytermSpec {
  /** Where the terms go, as the vendor names it. */
  parameter: string;
  /** Most characters per term the vendor takes, when fewer than our 50. */
  maxChars?: number;
  /** Most words per term. */
  maxWords?: number;
  /** Most characters per word. */
  maxWordChars?: number;
  /** The term must hold a letter. */
  needsLetter?: boolean;
  /** Characters the vendor refuses in a term, and how to say so. */
  refused?: { pattern: RegExp; what: string };
}

/** One row of the table. */
export interface VendorSpec {
  /** Null: the vendor has no boosting parameter. */
  keyterms: KeytermSpec | null;
  /** Public API origin; a binding's `base_url` replaces it (Azure's depends on the region). */
  defaultBase?: string;
  limits: AudioLimits;
  /**
   * The audio limits when speaker labels are asked for, where the vendor serves them from another API
   * with its own limits (Azure: fast transcription instead of the short-audio API); absent: `limits`.
   */
  diarizationLimits?: AudioLimits;
  /** Submit a job, then poll its status: gets the polling defaults of `JOB_DEFAULTS`. */
  polling: boolean;
}

const MB = 1024 * 1024;
const GB = 1024 * MB;

/** The hosted vendors. */
export const VENDOR_TABLE: Readonly<Record<VendorKind, VendorSpec>> = {
  openai: { keyterms: { parameter: 'prompt' }, defaultBase: 'https://api.openai.com', limits: { minSeconds: 0.1, maxBytes: 25 * MB }, polling: false },
  deepgram: { keyterms: { parameter: 'keyterm' }, defaultBase: 'https://api.deepgram.com', limits: { maxBytes: 2 * GB }, polling: false },
  assemblyai: { keyterms: { parameter: 'keyterms_prompt', maxWords: 6 }, defaultBase: 'https://api.assemblyai.com', limits: { maxSeconds: 10 * 3600, maxBytes: 2.2 * GB }, polling: true },
  // Its 10 MB request cap needs no check of ours: a minute at <= 48 kHz is under 8 MB even as base64.
  google: { keyterms: { parameter: 'speechContexts[].phrases' }, defaultBase: 'https://speech.googleapis.com', limits: { maxSeconds: 60 }, polling: false },
  azure: { keyterms: { parameter: 'phraseList.phrases' }, limits: { maxSeconds: 60 }, diarizationLimits: { maxSeconds: 2 * 3600, maxBytes: 200 * MB }, polling: false },
  revai: { keyterms: { parameter: 'custom_vocabularies[].phrases', needsLetter: true, maxWords: 12, maxWordChars: 34, refused: { pattern: /[0-9]|[^\x20-\x7e]/, what: 'digits or characters outside Basic Latin' } }, defaultBase: 'https://api.rev.ai', limits: { maxSeconds: 17 * 3600, maxBytes: 2 * GB }, polling: true },
  speechmatics: { keyterms: { parameter: 'additional_vocab[].content' }, defaultBase: 'https://asr.api.speechmatics.com', limits: { maxSeconds: 2 * 3600, maxBytes: 1 * GB }, polling: true },
  elevenlabs: { keyterms: { parameter: 'keyterms', maxChars: 49, maxWords: 5, refused: { pattern: /[<>{}[\]\\]/, what: 'any of < > { } [ ] \\' } }, defaultBase: 'https://api.elevenlabs.io', limits: { minSeconds: 0.1, maxBytes: 5 * GB }, polling: false },
  gladia: { keyterms: { parameter: 'custom_vocabulary_config.vocabulary' }, defaultBase: 'https://api.gladia.io', limits: { maxSeconds: 135 * 60, maxBytes: 1000 * MB }, polling: true },
};

/** Timeout defaults (DESIGN §4.11 gives 60 s; job-based vendors need time in proportion to the audio). */
export const TIMEOUTS = {
  /** Synchronous vendors and local engines. */
  defaultMs: 60_000,
  /** Job-based vendors: a base budget for upload and queueing ... */
  jobBaseMs: 120_000,
  /** ... plus this much per second of audio (their processing runs at most about real time). */
  jobPerAudioSecondMs: 1000,
  /** The local recogniser without a fixed timeout_ms: this much per second of audio on top of `defaultMs` (PocketSphinx decodes at a fraction of real time). */
  localPerAudioSecondMs: 1000,
  /** Pause between status polls of a job (the SDKs of AssemblyAI, Gladia and Speechmatics use 3 s). */
  jobPollMs: 3000,
  /** No budget exceeds this, however long the audio (the Speechmatics SDK waits 15 min; we allow more for hours of audio). */
  maxMs: 60 * 60_000,
} as const;
