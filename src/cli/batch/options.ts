// The flags of `batch submit` and `batch list` as commander hands them over, parsed into what each command
// does: pure functions, so a unit test checks them without a program or a service.
import type { Job } from '../../shared/schemas/tts.js';
import type { SampleRateHz } from '../../shared/constants.js';

/** The flags of `batch submit`. */
export interface SubmitFlags {
  speaker?: string;
  watch?: boolean;
  download?: string;
  force?: boolean;
  skipExisting?: boolean;
  sampleRate?: string;
}

/** What `batch submit` does with its items. */
export interface SubmitOptions {
  /** The FILE argument: `-` reads stdin. */
  input: { from: 'stdin' } | { from: 'file'; file: string };
  /** For items without a speaker_id (else config `speaker`, else the catalogue's first). */
  speaker?: string;
  /** Follow the jobs to their end: --watch, or --download (which needs the end). */
  watch: boolean;
  download?: { dir: string; force?: boolean; skipExisting?: boolean };
  sampleRate?: SampleRateHz;
}

/** Parses `batch submit FILE` (commander has checked `--sample-rate` against its choices). */
export function submitOptions(file: string, flags: SubmitFlags): SubmitOptions {
  return {
    input: file === '-' ? { from: 'stdin' } : { from: 'file', file },
    speaker: flags.speaker,
    watch: Boolean(flags.watch || flags.download !== undefined),
    ...(flags.download !== undefined ? { download: { dir: flags.download, force: flags.force, skipExisting: flags.skipExisting } } : {}),
    ...(flags.sampleRate ? { sampleRate: Number(flags.sampleRate) as SampleRateHz } : {}),
  };
}

/** The flags of `batch list`. */
export interface ListFlags {
  status?: Job['status'];
  limit?: number;
  offset?: number;
  all?: boolean;
  csv?: boolean;
}

/** One page (`--limit`/`--offset`), or every page from `--offset` on (`--all`). */
export type ListPaging = { all: true; offset: number } | { all: false; limit?: number; offset?: number };

/** Parses `batch list`: the status filter and the paging. */
export function listOptions(flags: ListFlags): { status?: Job['status']; paging: ListPaging } {
  return {
    status: flags.status,
    paging: flags.all ? { all: true, offset: flags.offset ?? 0 } : { all: false, limit: flags.limit, offset: flags.offset },
  };
}
