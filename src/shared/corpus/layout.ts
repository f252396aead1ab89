/**
 * Which of the four layouts of DESIGN §10.1 an archive (or a local directory) is, from its paths and the
 * first line of its candidate manifests. Pure: the caller says how to read a file's text.
 */
import { posix } from 'node:path';
import type { CorpusLayoutName } from '../constants.js';
import { validationFailed } from '../errors.js';
import { CORPUS_MESSAGES } from './messages.js';
import { commonTopFolder, dirOf, isArchiverDebris } from './paths.js';
import { parseCsvRecords } from './csv.js';

/** Reads a file of the list as text (UTF-8); the server reads extracted files, the CLI local ones. */
export type ReadText = (path: string) => Promise<string>;

/** Transcript columns of an audiofolder manifest, in order of preference. */
export const TRANSCRIPT_COLUMNS = ['transcription', 'text', 'sentence', 'transcript'] as const;
/** Speaker columns of an audiofolder manifest, in order of preference. */
export const SPEAKER_COLUMNS = ['speaker_id', 'speaker', 'client_id'] as const;

/** The recognised layout and its manifests (paths of the list, sorted). */
export interface DetectedLayout {
  layout: CorpusLayoutName;
  /** The ignored common top folder with its slash, or `''`. */
  root: string;
  /** audiofolder: metadata files; commonvoice: the one .tsv; librispeech: *.trans.txt; kaldi: wav.scp files. */
  manifests: string[];
  /** Every file of the list, archiver debris left out. */
  files: ReadonlySet<string>;
}

/** The error of an archive that is none of the layouts, or more than one. */
export const unrecognisedLayout = () => validationFailed(CORPUS_MESSAGES.unrecognised);

/** The line breaks of manifests: LF, CRLF or a lone CR. */
export const splitLines = (text: string): string[] => text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);

/** True when the header names `file_name` and a transcript column (column names compared in lower case). */
function isAudiofolderHeader(names: readonly string[]): boolean {
  const lower = names.map((n) => n.trim().toLowerCase());
  return lower.includes('file_name') && TRANSCRIPT_COLUMNS.some((c) => lower.includes(c));
}

/** The first record's keys of a JSON Lines manifest, or [] when its first line is not an object. */
function firstJsonKeys(text: string): string[] {
  const first = splitLines(text).find((l) => l.trim() !== '');
  if (first === undefined) return [];
  try {
    const value: unknown = JSON.parse(first);
    return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  } catch {
    return [];
  }
}

async function audiofolderManifests(files: readonly string[], readText: ReadText): Promise<string[]> {
  const found: string[] = [];
  for (const f of files) {
    const base = posix.basename(f);
    if (base !== 'metadata.csv' && base !== 'metadata.jsonl') continue;
    const text = await readText(f);
    let header: string[] = [];
    if (base === 'metadata.jsonl') header = firstJsonKeys(text);
    else {
      try {
        header = (await parseCsvRecords(splitLines(text)[0] ?? ''))[0]?.cells ?? [];
      } catch {
        header = [];
      }
    }
    if (isAudiofolderHeader(header)) found.push(f);
  }
  return found;
}

/** The Common Voice .tsv: `test.tsv`, else `validated.tsv`, else the only one with `path` and `sentence`. */
async function commonVoiceManifest(files: readonly string[], readText: ReadText): Promise<string[] | 'ambiguous'> {
  const candidates: string[] = [];
  for (const f of files) {
    if (!f.toLowerCase().endsWith('.tsv')) continue;
    const header = (splitLines(await readText(f))[0] ?? '').split('\t').map((c) => c.trim());
    if (header.includes('path') && header.includes('sentence')) candidates.push(f);
  }
  if (candidates.length === 0) return [];
  for (const preferred of ['test.tsv', 'validated.tsv']) {
    const named = candidates.filter((f) => posix.basename(f) === preferred);
    if (named.length === 1) return named;
    if (named.length > 1) return 'ambiguous';
  }
  return candidates.length === 1 ? candidates : 'ambiguous';
}

/**
 * Detects the layout of a list of file paths (relative, `/`-separated, as `normalizeArchivePath` gives):
 * exactly one layout must match, else the DESIGN's "Unrecognised corpus layout" error.
 */
export async function detectCorpusLayout(paths: readonly string[], readText: ReadText): Promise<DetectedLayout> {
  const list = [...new Set(paths.filter((p) => !isArchiverDebris(p)))].sort();
  const files = new Set(list);
  const root = commonTopFolder(list);
  const found: { layout: CorpusLayoutName; manifests: string[] }[] = [];

  const audiofolder = await audiofolderManifests(list, readText);
  if (audiofolder.length > 0) found.push({ layout: 'audiofolder', manifests: audiofolder });
  const commonvoice = await commonVoiceManifest(list, readText);
  if (commonvoice === 'ambiguous') throw unrecognisedLayout();
  if (commonvoice.length > 0) found.push({ layout: 'commonvoice', manifests: commonvoice });
  const librispeech = list.filter((f) => f.endsWith('.trans.txt'));
  if (librispeech.length > 0) found.push({ layout: 'librispeech', manifests: librispeech });
  const kaldi = list.filter((f) => posix.basename(f) === 'wav.scp' && files.has(dirOf(f) === '' ? 'text' : `${dirOf(f)}/text`));
  if (kaldi.length > 0) found.push({ layout: 'kaldi', manifests: kaldi });

  if (found.length !== 1) throw unrecognisedLayout();
  return { ...found[0]!, root, files };
}
