/**
 * The exact messages of DESIGN §10 (corpora), written once for the service, which answers them, and the
 * CLI, which detects a directory's layout before uploading it. Plain data: no imports beyond constants.
 */
import { CORPUS_LIMITS } from '../constants.js';

/** Every corpus message; functions fill in the path, manifest line or id the message names. */
export const CORPUS_MESSAGES = {
  unrecognised:
    'Unrecognised corpus layout: expected metadata.csv, a Common Voice .tsv, LibriSpeech *.trans.txt or a Kaldi wav.scp with text',
  /** No layout, but a manifest of one that lacks columns (a typo in its header): say which, keeping the prefix. */
  manifestLacks: (manifest: string, lacks: string, header: readonly string[]) =>
    `Unrecognised corpus layout: ${manifest} lacks ${lacks}; its header has ${header.join(', ') || 'no columns'}`,
  notAnArchive: 'Archive is not a zip or tar file',
  archiveTooBig: 'Archive exceeds 2 GiB',
  unsafePath: (path: string) => `Unsafe path in archive: ${path}`,
  expandsTooMuch: 'Archive expands beyond 10 GiB',
  /** DESIGN §17.2-17.3: hostile input is refused with these. */
  corruptEntry: (path: string) => `Corrupt archive entry: ${path}`,
  manifestTooLarge: (path: string) => `Manifest too large: ${path}`,
  lineTooLong: (manifest: string, line: number) => `${manifest}:${line}: line too long`,
  notUtf8: (manifest: string, line: number) => `${manifest}:${line}: not valid UTF-8`,
  tooManyUploads: 'Too many uploads in progress',
  tooManyEntries: `Archive has more than ${CORPUS_LIMITS.entries} entries`,
  noUtterances: 'Corpus has no utterances',
  tooManyUtterances: `Corpus exceeds ${CORPUS_LIMITS.utterances} utterances`,
  audioNotFound: (manifest: string, line: number, path: string) => `${manifest}:${line}: audio file not found in the archive: ${path}`,
  missingTranscript: (manifest: string, line: number) => `${manifest}:${line}: missing transcript`,
  duplicateId: (id: string) => `Duplicate utterance id: ${id}`,
  corruptAudio: (path: string) => `${path}: unsupported or corrupt audio`,
  audioTooLong: (path: string) => `${path}: audio longer than 10 minutes`,
  /** DESIGN §16.5: a recorded call (the `stm` layout) runs at most 4 hours. */
  callTooLong: (path: string) => `${path}: audio longer than 4 hours`,
  callTooBig: (path: string) => `${path}: audio file exceeds 100 MB`,
  stmSegment: (manifest: string, line: number) => `${manifest}:${line}: not an STM segment: expected file channel speaker start end [<label>] words`,
  /** DESIGN §17.4: M4A is decoded by the operating system's ffmpeg only; without one it is refused. */
  m4aNeedsFfmpeg: (path: string) => `${path}: M4A needs ffmpeg (apt-get install ffmpeg)`,
  /** DESIGN gives no message for these three; each names the file and line like the ones it does give. */
  audioTooBig: (path: string) => `${path}: audio file exceeds 25 MB`,
  commandPipeline: (manifest: string, line: number) => `${manifest}:${line}: command pipelines are not supported, only file paths`,
  invalidJson: (manifest: string, line: number) => `${manifest}:${line}: invalid JSON`,
  malformedCsv: (manifest: string, line: number, reason: string) => `${manifest}:${line}: malformed CSV: ${reason}`,
  /** Prefix of the rule-6 text checks of a reference. */
  utterancePrefix: (id: string) => `Utterance ${id}: `,
  nameMissing: "Missing required field 'name'",
  nameLength: `name must be 1 to ${CORPUS_LIMITS.name} characters`,
  fileMissing: "Missing required file 'file'",
  notFound: 'Corpus not found',
  inUse: 'Corpus is used by a running evaluation',
} as const;
