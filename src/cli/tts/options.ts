// The flags of `tts say` as commander hands them over, parsed into what the command does: a pure function,
// so a unit test checks the rules without a program, a service or a terminal.
import type { SampleRateHz } from '../../shared/constants.js';
import { usageError } from '../core/errors.js';

/** The flags of `tts say`. */
export interface SayFlags {
  file?: string;
  speaker?: string;
  out?: string;
  force?: boolean;
  play?: boolean;
  sampleRate?: string;
}

/** Where the text of `tts say` comes from. */
export type TextSource = { from: 'file'; file: string } | { from: 'stdin' } | { from: 'argument'; text: string };

/** What `tts say` synthesises and where the audio goes. */
export interface SayOptions {
  text: TextSource;
  /** No TEXT argument: an empty text (blank stdin) is a usage error rather than silence. */
  textRequired: boolean;
  speaker?: string;
  out?: string;
  force?: boolean;
  play?: boolean;
  sampleRate?: SampleRateHz;
}

/**
 * Parses `tts say [TEXT]`: TEXT, `--file`, or stdin (`-`, or no TEXT while stdin is not a terminal);
 * commander has already checked `--sample-rate` against its choices.
 */
export function sayOptions(text: string | undefined, flags: SayFlags, stdinIsTTY: boolean | undefined): SayOptions {
  if (text !== undefined && flags.file) throw usageError('Give the text as an argument or with --file, not both');
  const source: TextSource = flags.file
    ? { from: 'file', file: flags.file }
    : text === '-' || (text === undefined && !stdinIsTTY)
      ? { from: 'stdin' }
      : { from: 'argument', text: text ?? '' };
  return {
    text: source,
    textRequired: text === undefined,
    speaker: flags.speaker,
    out: flags.out,
    force: flags.force,
    play: flags.play,
    ...(flags.sampleRate ? { sampleRate: Number(flags.sampleRate) as SampleRateHz } : {}),
  };
}
