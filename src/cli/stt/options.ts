// The flags of `stt transcribe|compare|accuracy` as commander hands them over, parsed into what each command
// needs, in the order the checks have always run (the first mistake is the one reported, exit 2). Texts
// given as files are read through `read`, so a unit test calls these without a program or a disk.
import { AccuracyInputError, calculateAccuracy, type AccuracyReport } from '../../shared/accuracy.js';
import { KeytermsError, normalizeKeyterms } from '../../shared/keyterms.js';
import { NORMALIZER_NAMES, UnknownNormalizerError, type NormalizerName } from '../../shared/normalizers/index.js';
import { usageError } from '../core/errors.js';
import { ALL_PROVIDERS, parseProviders } from '../core/stt-providers.js';
import { readInputFile } from '../core/util.js';

/** Reads a text file named on the command line (ENOENT is a usage error). */
export type ReadText = (file: string) => Promise<string>;

/** The real reader: the file as UTF-8. */
export const readText: ReadText = async (file) => (await readInputFile(file)).toString('utf8');

/** How transcripts are compared: normalised (the default) with the named normaliser, or raw tokens. */
export interface Scoring {
  normalize: boolean;
  normalizer: string;
}

/** `--providers a,b` as a list; `all` here is every token (the unconfigured ones are named in one line, DESIGN §7). */
export function sttProviders(value: string): string[] {
  const choice = parseProviders(value);
  return choice.all ? [...ALL_PROVIDERS] : choice.list;
}

/** `--keyterm TERM…` (repeated or several after one flag) checked with the service's rule; undefined when absent. */
export function parseKeyterms(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  try {
    return normalizeKeyterms(values);
  } catch (e) {
    if (e instanceof KeytermsError) throw usageError(e.message);
    throw e;
  }
}

/** WER/CER with the service's rules; a bad normaliser or input is a usage error. */
export function accuracy(
  reference: string,
  hypothesis: string,
  options: { normalize?: boolean; normalizer?: string; alignment?: boolean; entities?: { type: string; value: string }[] } = {},
): AccuracyReport {
  try {
    return calculateAccuracy(reference, hypothesis, { ...options, normalizer: options.normalizer as NormalizerName | undefined });
  } catch (e) {
    if (e instanceof UnknownNormalizerError) throw usageError(e.message, `known: ${NORMALIZER_NAMES.join(', ')}`);
    if (e instanceof AccuracyInputError) throw usageError(e.message);
    throw e;
  }
}

/** `--X TEXT` or `--X-file FILE` (not both): the text, or undefined when neither is given. */
export async function textArg(inline: string | undefined, file: string | undefined, what: string, read: ReadText = readText): Promise<string | undefined> {
  if (inline !== undefined && file !== undefined) throw usageError(`Give --${what} or --${what}-file, not both`);
  if (file !== undefined) return read(file);
  return inline;
}

/** The flags of `stt transcribe`. */
export interface TranscribeFlags {
  providers: string;
  language?: string;
  keyterm?: string[];
  csv?: boolean;
}

/** What `stt transcribe` asks for. */
export interface TranscribeOptions {
  providers: string[];
  language?: string;
  keyterms?: string[];
  csv?: boolean;
}

/** Parses the flags of `stt transcribe`. */
export function transcribeOptions(flags: TranscribeFlags): TranscribeOptions {
  const providers = sttProviders(flags.providers);
  const keyterms = parseKeyterms(flags.keyterm);
  return { providers, language: flags.language, keyterms, csv: flags.csv };
}

/** The flags of `stt compare`. */
export interface CompareFlags extends TranscribeFlags, Scoring {
  reference?: string;
  referenceFile?: string;
}

/** What `stt compare` asks for: the transcription, and the reference each transcript is scored against. */
export interface CompareOptions extends TranscribeOptions {
  reference: string;
  scoring: Scoring;
}

/** Parses the flags of `stt compare`, reading `--reference-file` (the reference is checked before any request). */
export async function compareOptions(flags: CompareFlags, read: ReadText = readText): Promise<CompareOptions> {
  const keyterms = parseKeyterms(flags.keyterm);
  const reference = await textArg(flags.reference, flags.referenceFile, 'reference', read);
  if (reference === undefined) throw usageError('stt compare needs --reference TEXT or --reference-file FILE');
  const scoring = { normalize: flags.normalize, normalizer: flags.normalizer };
  accuracy(reference, '', scoring);
  const providers = sttProviders(flags.providers);
  return { providers, language: flags.language, keyterms, csv: flags.csv, reference, scoring };
}

/** The flags of `stt accuracy`. */
export interface AccuracyFlags extends Scoring {
  reference?: string;
  referenceFile?: string;
  hypothesis?: string;
  hypothesisFile?: string;
  alignment?: boolean;
  entity?: string[];
}

/** What `stt accuracy` scores. */
export interface AccuracyOptions {
  reference: string;
  hypothesis: string;
  scoring: Scoring & { alignment?: boolean; entities?: { type: string; value: string }[] };
}

/** `--entity type=value` (repeatable): the entities to look for in the hypothesis. */
export function parseEntities(values: string[] | undefined): { type: string; value: string }[] | undefined {
  return values?.map((e) => {
    const at = e.indexOf('=');
    if (at < 1) throw usageError(`--entity takes type=value, got '${e}'`, 'voxctl stt accuracy … --entity money=12.50 --entity date=2027-03-04');
    return { type: e.slice(0, at), value: e.slice(at + 1) };
  });
}

/** Parses the flags of `stt accuracy`, reading the `-file` forms. */
export async function accuracyOptions(flags: AccuracyFlags, read: ReadText = readText): Promise<AccuracyOptions> {
  const reference = await textArg(flags.reference, flags.referenceFile, 'reference', read);
  const hypothesis = await textArg(flags.hypothesis, flags.hypothesisFile, 'hypothesis', read);
  if (reference === undefined || hypothesis === undefined) throw usageError('stt accuracy needs --reference and --hypothesis (or their -file forms)');
  const entities = parseEntities(flags.entity);
  return { reference, hypothesis, scoring: { normalize: flags.normalize, normalizer: flags.normalizer, alignment: flags.alignment, ...(entities ? { entities } : {}) } };
}
