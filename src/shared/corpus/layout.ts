/**
 * Which of the layouts of DESIGN §10.1 and §16.5 an archive (or a local directory) is, from its paths and the
 * first line of its candidate manifests, read alone (DESIGN §17.2). The caller says how to read a file.
 */
import { posix } from 'node:path';
import type { CorpusLayoutName } from '../constants.js';
import { validationFailed } from '../errors.js';
import { CORPUS_MESSAGES } from './messages.js';
import { commonTopFolder, dirOf, isArchiverDebris } from './paths.js';
import { parseCsvRecords } from './csv.js';
import { firstLine, type ManifestFiles } from './manifest-files.js';

export type { ManifestFiles, ReadText } from './manifest-files.js';

/** Transcript columns of an audiofolder manifest, in order of preference. */
export const TRANSCRIPT_COLUMNS = ['transcription', 'text', 'sentence', 'transcript'] as const;
/** Speaker columns of an audiofolder manifest, in order of preference. */
export const SPEAKER_COLUMNS = ['speaker_id', 'speaker', 'client_id'] as const;

/** The recognised layout and its manifests (paths of the list, sorted). */
export interface DetectedLayout {
  layout: CorpusLayoutName;
  /** The ignored common top folder with its slash, or `''`. */
  root: string;
  /** audiofolder: metadata files; commonvoice: the one .tsv; librispeech: *.trans.txt; kaldi: wav.scp files; stm: *.stm. */
  manifests: string[];
  /** Every file of the list, archiver debris left out. */
  files: ReadonlySet<string>;
}

/** The error of an archive that is none of the layouts, or more than one. */
export const unrecognisedLayout = () => validationFailed(CORPUS_MESSAGES.unrecognised);

/** What an audiofolder header lacks — `file_name`, a transcript column, or both — or undefined when it has both (names compared in lower case). */
function audiofolderLacks(names: readonly string[]): string | undefined {
  const lower = names.map((n) => n.trim().toLowerCase());
  const lacks = [
    ...(lower.includes('file_name') ? [] : ['the column file_name']),
    ...(TRANSCRIPT_COLUMNS.some((c) => lower.includes(c)) ? [] : [`a transcript column (${TRANSCRIPT_COLUMNS.slice(0, -1).join(', ')} or ${TRANSCRIPT_COLUMNS.at(-1)})`]),
  ];
  return lacks.length ? lacks.join(' and ') : undefined;
}

/** A manifest that names a layout but lacks its columns: reported when no layout is recognised (issue 30). */
interface LackingManifest {
  manifest: string;
  lacks: string;
  header: string[];
}

/** The first record's keys of a JSON Lines manifest, or [] when its first line is not an object. */
function firstJsonKeys(first: string): string[] {
  if (first.trim() === '') return [];
  try {
    const value: unknown = JSON.parse(first);
    return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  } catch {
    return [];
  }
}

/** A path as messages name it: relative to the ignored top folder. */
const shown = (path: string, root: string) => (path.startsWith(root) ? path.slice(root.length) : path);

async function audiofolderManifests(files: readonly string[], read: ManifestFiles, root: string, lacking: LackingManifest[]): Promise<string[]> {
  const found: string[] = [];
  for (const f of files) {
    const base = posix.basename(f);
    if (base !== 'metadata.csv' && base !== 'metadata.jsonl') continue;
    const first = await firstLine(read, f, shown(f, root));
    let header: string[] = [];
    if (base === 'metadata.jsonl') header = firstJsonKeys(first);
    else {
      try {
        header = (await parseCsvRecords(first))[0]?.cells ?? [];
      } catch {
        header = [];
      }
    }
    const lacks = audiofolderLacks(header);
    if (lacks === undefined) found.push(f);
    else lacking.push({ manifest: shown(f, root), lacks, header });
  }
  return found;
}

/** The Common Voice .tsv: `test.tsv`, else `validated.tsv`, else the only one with `path` and `sentence`. */
async function commonVoiceManifest(files: readonly string[], read: ManifestFiles, root: string, lacking: LackingManifest[]): Promise<string[] | 'ambiguous'> {
  const candidates: string[] = [];
  for (const f of files) {
    if (!f.toLowerCase().endsWith('.tsv')) continue;
    const header = (await firstLine(read, f, shown(f, root))).split('\t').map((c) => c.trim());
    if (header.includes('path') && header.includes('sentence')) candidates.push(f);
    // one of the two: a Common Voice manifest with a typo, not some other table
    else if (header.includes('path') || header.includes('sentence')) {
      lacking.push({ manifest: shown(f, root), lacks: `the column ${header.includes('path') ? 'sentence' : 'path'}`, header });
    }
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
export async function detectCorpusLayout(paths: readonly string[], read: ManifestFiles): Promise<DetectedLayout> {
  const list = [...new Set(paths.filter((p) => !isArchiverDebris(p)))].sort();
  const files = new Set(list);
  const root = commonTopFolder(list);
  const found: { layout: CorpusLayoutName; manifests: string[] }[] = [];
  const lacking: LackingManifest[] = [];

  const audiofolder = await audiofolderManifests(list, read, root, lacking);
  if (audiofolder.length > 0) found.push({ layout: 'audiofolder', manifests: audiofolder });
  const commonvoice = await commonVoiceManifest(list, read, root, lacking);
  if (commonvoice === 'ambiguous') throw unrecognisedLayout();
  if (commonvoice.length > 0) found.push({ layout: 'commonvoice', manifests: commonvoice });
  const librispeech = list.filter((f) => f.endsWith('.trans.txt'));
  if (librispeech.length > 0) found.push({ layout: 'librispeech', manifests: librispeech });
  const kaldi = list.filter((f) => posix.basename(f) === 'wav.scp' && files.has(dirOf(f) === '' ? 'text' : `${dirOf(f)}/text`));
  if (kaldi.length > 0) found.push({ layout: 'kaldi', manifests: kaldi });
  // Recorded calls (DESIGN §16.5): a NIST STM transcript beside each call's audio.
  const stm = list.filter((f) => f.toLowerCase().endsWith('.stm'));
  if (stm.length > 0) found.push({ layout: 'stm', manifests: stm });

  const near = lacking[0];
  if (found.length === 0 && near) throw validationFailed(CORPUS_MESSAGES.manifestLacks(near.manifest, near.lacks, near.header));
  if (found.length !== 1) throw unrecognisedLayout();
  return { ...found[0]!, root, files };
}
