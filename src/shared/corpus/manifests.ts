/**
 * Reads the manifests of a detected layout into utterance records and applies every line rule of DESIGN
 * §10.2/§10.3: transcript present, audio in the archive, ids unique, reference text rules (rule 6 at
 * 10,000 code points), 1..20,000 utterances. The first problem in file order is thrown; nothing is decoded
 * here, so the CLI can run the same checks before an upload starts.
 */
import { posix } from 'node:path';
import { CORPUS_LIMITS, type CorpusLayoutName } from '../constants.js';
import { DomainError, validationFailed } from '../errors.js';
import { codePoints, hasLoneSurrogate, isSpeakable, TEXT_MESSAGES } from '../text-rules.js';
import { CORPUS_MESSAGES } from './messages.js';
import { detectCorpusLayout, SPEAKER_COLUMNS, splitLines, TRANSCRIPT_COLUMNS, type DetectedLayout, type ReadText } from './layout.js';
import { dirOf, joinInside, withoutExtension } from './paths.js';
import { MalformedCsvError, parseCsvRecords } from './csv.js';

/** One utterance of a corpus as its manifest describes it (audio not yet decoded). */
export interface CorpusUtterance {
  /** LibriSpeech/Kaldi: the id as given; audiofolder/Common Voice: the audio path relative to the manifest, no extension. */
  utterance_id: string;
  /** The audio file: a path of the list given to `parseCorpus`. */
  audio_path: string;
  /** The reference transcript, trimmed. */
  reference: string;
  speaker: string | null;
  /** Metadata values by field name (empty values left out). */
  metadata: Record<string, string>;
  /** The manifest line that declared it: path relative to the corpus root, 1-based line. */
  manifest: string;
  line: number;
}

/** A corpus as read from its manifests. */
export interface ParsedCorpus {
  layout: CorpusLayoutName;
  /** The ignored common top folder with its slash, or `''`. */
  root: string;
  utterances: CorpusUtterance[];
  /** Names of the metadata fields, in order of first appearance. */
  metadata_fields: string[];
}

/** Limits a caller may lower (tests); DESIGN's by default. */
export interface CorpusParseOptions {
  maxUtterances?: number;
}

const fail = (message: string): never => {
  throw validationFailed(message);
};

/** Applies rule 6 to a reference (prefix `Utterance {id}: `, at most 10,000 code points); empty is the caller's. */
export function checkReference(id: string, text: string): void {
  const prefix = CORPUS_MESSAGES.utterancePrefix(id);
  if (hasLoneSurrogate(text)) fail(prefix + TEXT_MESSAGES.lone_surrogate);
  if (codePoints(text) > CORPUS_LIMITS.referenceCodePoints) {
    throw new DomainError('text_too_long', `${prefix}Text exceeds maximum length of ${CORPUS_LIMITS.referenceCodePoints} characters`);
  }
  if (!isSpeakable(text)) fail(prefix + TEXT_MESSAGES.nothing_to_speak);
}

/** Collects utterances in file order, enforcing ids, references and the count as they arrive. */
class Collector {
  readonly utterances: CorpusUtterance[] = [];
  private readonly ids = new Set<string>();
  private readonly fields: string[] = [];

  constructor(
    readonly layout: DetectedLayout,
    private readonly max: number,
  ) {}

  /** A path relative to the corpus root, as messages name it. */
  display(path: string): string {
    return path.startsWith(this.layout.root) ? path.slice(this.layout.root.length) : path;
  }

  /** The audio file a manifest line names, or the "not found" error with the path as written. */
  audio(manifest: string, line: number, candidates: (string | undefined)[], written: string): string {
    const hit = candidates.find((c) => c !== undefined && this.layout.files.has(c));
    return hit ?? fail(CORPUS_MESSAGES.audioNotFound(this.display(manifest), line, written));
  }

  missingTranscript(manifest: string, line: number): never {
    return fail(CORPUS_MESSAGES.missingTranscript(this.display(manifest), line));
  }

  field(name: string): void {
    if (!this.fields.includes(name)) this.fields.push(name);
  }

  /** Checks and keeps one utterance (`manifest` still the full path, `reference` untrimmed). */
  add(u: CorpusUtterance): void {
    const reference = u.reference.trim();
    if (reference === '') this.missingTranscript(u.manifest, u.line);
    if (this.ids.has(u.utterance_id)) fail(CORPUS_MESSAGES.duplicateId(u.utterance_id));
    checkReference(u.utterance_id, reference);
    if (this.utterances.length >= this.max) fail(CORPUS_MESSAGES.tooManyUtterances);
    this.ids.add(u.utterance_id);
    for (const k of Object.keys(u.metadata)) this.field(k);
    this.utterances.push({ ...u, reference, manifest: this.display(u.manifest) });
  }

  get metadataFields(): string[] {
    return [...this.fields];
  }
}

/** Metadata cell values trimmed; empty ones left out. */
function metadataOf(entries: [string, unknown][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (v === null || v === undefined) continue;
    const s = (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)).trim();
    if (s !== '') out[k] = s;
  }
  return out;
}

/** audiofolder `metadata.csv`: header line 1, `file_name` relative to the manifest's folder. */
async function readAudiofolderCsv(c: Collector, manifest: string, text: string): Promise<void> {
  let records;
  try {
    records = await parseCsvRecords(text);
  } catch (err) {
    if (err instanceof MalformedCsvError) fail(CORPUS_MESSAGES.malformedCsv(c.display(manifest), err.line, err.reason));
    throw err;
  }
  const [header, ...rows] = records;
  if (!header) return;
  const names = header.cells.map((n) => n.trim());
  const lower = names.map((n) => n.toLowerCase());
  const fileCol = lower.indexOf('file_name');
  const textCol = lower.indexOf(TRANSCRIPT_COLUMNS.find((t) => lower.includes(t))!);
  const speakerName = SPEAKER_COLUMNS.find((s) => lower.includes(s));
  const speakerCol = speakerName ? lower.indexOf(speakerName) : -1;
  const metaCols = names.map((n, i) => [n, i] as const).filter(([n, i]) => n !== '' && i !== fileCol && i !== textCol && i !== speakerCol);
  for (const [name] of metaCols) c.field(name);
  const dir = dirOf(manifest);
  for (const { line, cells } of rows) {
    const fileName = (cells[fileCol] ?? '').trim();
    readAudiofolderRow(c, {
      manifest,
      line,
      dir,
      fileName,
      transcript: cells[textCol] ?? '',
      speaker: speakerCol >= 0 ? cells[speakerCol] : undefined,
      metadata: metadataOf(metaCols.map(([n, i]) => [n, cells[i]])),
    });
  }
}

/** One audiofolder row: the id is `file_name` without its extension, relative to the manifest. */
function readAudiofolderRow(
  c: Collector,
  r: { manifest: string; line: number; dir: string; fileName: string; transcript: unknown; speaker: unknown; metadata?: Record<string, string> },
): void {
  if (typeof r.transcript !== 'string' || r.transcript.trim() === '') c.missingTranscript(r.manifest, r.line);
  const rel = r.fileName === '' ? undefined : joinInside('', r.fileName);
  const audio = c.audio(r.manifest, r.line, [rel === undefined ? undefined : joinInside(r.dir, rel)], r.fileName);
  const speaker = typeof r.speaker === 'string' || typeof r.speaker === 'number' ? String(r.speaker).trim() : '';
  c.add({
    utterance_id: withoutExtension(rel!),
    audio_path: audio,
    reference: r.transcript as string,
    speaker: speaker === '' ? null : speaker,
    metadata: r.metadata ?? {},
    manifest: r.manifest,
    line: r.line,
  });
}

/** audiofolder `metadata.jsonl`: one object per line (line 1 is the first record). */
function readAudiofolderJsonl(c: Collector, manifest: string, text: string): void {
  const dir = dirOf(manifest);
  let transcriptKey: string | undefined;
  splitLines(text).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      fail(CORPUS_MESSAGES.invalidJson(c.display(manifest), line));
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) return fail(CORPUS_MESSAGES.invalidJson(c.display(manifest), line));
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    const lowerKey = (name: string) => keys.find((k) => k.toLowerCase() === name);
    transcriptKey ??= TRANSCRIPT_COLUMNS.map(lowerKey).find((k) => k !== undefined);
    const fileKey = lowerKey('file_name');
    const speakerKey = SPEAKER_COLUMNS.map(lowerKey).find((k) => k !== undefined);
    const fileName = fileKey && typeof obj[fileKey] === 'string' ? (obj[fileKey] as string).trim() : '';
    const rest = keys.filter((k) => k !== fileKey && k !== transcriptKey && k !== speakerKey);
    for (const k of rest) c.field(k);
    readAudiofolderRow(c, {
      manifest,
      line,
      dir,
      fileName,
      transcript: transcriptKey ? obj[transcriptKey] : undefined,
      speaker: speakerKey ? obj[speakerKey] : undefined,
      metadata: metadataOf(rest.map((k) => [k, obj[k]])),
    });
  });
}

/** Common Voice metadata columns (DESIGN §10.1). */
const COMMON_VOICE_METADATA = ['gender', 'age', 'accents', 'accent', 'locale'];

/** Common Voice `.tsv`: tab-separated without quoting, header line 1; audio under `clips/` or beside. */
function readCommonVoice(c: Collector, manifest: string, text: string): void {
  const lines = splitLines(text);
  const header = (lines[0] ?? '').split('\t').map((h) => h.trim());
  const col = (name: string) => header.indexOf(name);
  const [pathCol, sentenceCol, clientCol] = [col('path'), col('sentence'), col('client_id')];
  const meta = COMMON_VOICE_METADATA.filter((m) => header.includes(m));
  for (const m of meta) c.field(m);
  const dir = dirOf(manifest);
  for (let i = 1; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    const line = i + 1;
    const cells = raw.split('\t');
    const written = (cells[pathCol] ?? '').trim();
    const sentence = cells[sentenceCol] ?? '';
    if (sentence.trim() === '') c.missingTranscript(manifest, line);
    const rel = written === '' ? undefined : joinInside('', written);
    const inClips = rel === undefined ? undefined : joinInside(dir, `clips/${rel}`);
    const beside = rel === undefined ? undefined : joinInside(dir, rel);
    const audio = c.audio(manifest, line, [inClips, beside], written);
    const id = withoutExtension(posix.relative(dir === '' ? '.' : dir, audio));
    const speaker = clientCol >= 0 ? (cells[clientCol] ?? '').trim() : '';
    c.add({
      utterance_id: id,
      audio_path: audio,
      reference: sentence,
      speaker: speaker === '' ? null : speaker,
      metadata: metadataOf(meta.map((m) => [m, cells[col(m)]])),
      manifest,
      line,
    });
  }
}

/** `{id} {rest}` lines (LibriSpeech transcripts, Kaldi tables): blank lines skipped, numbered as in the file. */
function idLines(text: string): { line: number; id: string; rest: string }[] {
  const out: { line: number; id: string; rest: string }[] = [];
  splitLines(text).forEach((raw, i) => {
    const m = /^\s*(\S+)(?:\s+(.*))?$/.exec(raw);
    if (m) out.push({ line: i + 1, id: m[1]!, rest: (m[2] ?? '').trim() });
  });
  return out;
}

/** LibriSpeech `*.trans.txt`: audio `{id}.flac` or `.wav` beside; speaker and chapter from the id. */
function readLibriSpeech(c: Collector, manifest: string, text: string): void {
  const dir = dirOf(manifest);
  for (const { line, id, rest } of idLines(text)) {
    if (rest === '') c.missingTranscript(manifest, line);
    const [flac, wav] = [joinInside(dir, `${id}.flac`), joinInside(dir, `${id}.wav`)];
    const audio = c.audio(manifest, line, [flac, wav], c.display(flac ?? `${dir}/${id}.flac`));
    const [speaker, chapter] = id.split('-');
    c.add({
      utterance_id: id,
      audio_path: audio,
      reference: rest,
      speaker: speaker || null,
      metadata: chapter ? { chapter } : {},
      manifest,
      line,
    });
  }
}

/** A wav.scp value that is a command (Kaldi's `cmd args |` pipes, or anything with arguments): never run. */
const isCommand = (value: string): boolean => value.endsWith('|') || value.startsWith('|') || /\s/.test(value);

/** A Kaldi data dir: `wav.scp` (utterances), `text`, optional `utt2spk` and `spk2gender`. */
async function readKaldi(c: Collector, wavScp: string, readText: ReadText): Promise<void> {
  const dir = dirOf(wavScp);
  const sibling = (name: string) => (dir === '' ? name : `${dir}/${name}`);
  const table = async (name: string) => {
    const path = sibling(name);
    return c.layout.files.has(path) ? idLines(await readText(path)) : undefined;
  };
  const textPath = sibling('text');
  const texts = new Map((await table('text'))!.map((t) => [t.id, t] as const));
  const utt2spk = new Map((await table('utt2spk'))?.map((t) => [t.id, t.rest] as const));
  const genderTable = await table('spk2gender');
  const spk2gender = new Map(genderTable?.map((t) => [t.id, t.rest] as const));
  if (genderTable) c.field('gender');
  for (const { line, id, rest } of idLines(await readText(wavScp))) {
    if (isCommand(rest)) fail(CORPUS_MESSAGES.commandPipeline(c.display(wavScp), line));
    const transcript = texts.get(id);
    if (!transcript) c.missingTranscript(wavScp, line);
    if (transcript!.rest === '') c.missingTranscript(textPath, transcript!.line);
    const audio = c.audio(wavScp, line, [joinInside(dir, rest), joinInside('', rest), joinInside(c.layout.root, rest)], rest);
    const speaker = utt2spk.get(id) || null;
    const gender = speaker ? spk2gender.get(speaker) : undefined;
    c.add({ utterance_id: id, audio_path: audio, reference: transcript!.rest, speaker, metadata: gender ? { gender } : {}, manifest: wavScp, line });
  }
}

/**
 * Detects the layout of `paths` and reads its manifests into utterances (see `detectCorpusLayout` for the
 * form of the paths). Throws the first problem as a 400 DomainError with DESIGN's exact message.
 */
export async function parseCorpus(paths: readonly string[], readText: ReadText, opts: CorpusParseOptions = {}): Promise<ParsedCorpus> {
  const cache = new Map<string, Promise<string>>();
  const read: ReadText = (p) => {
    let t = cache.get(p);
    if (!t) cache.set(p, (t = readText(p)));
    return t;
  };
  const layout = await detectCorpusLayout(paths, read);
  const c = new Collector(layout, opts.maxUtterances ?? CORPUS_LIMITS.utterances);
  for (const manifest of layout.manifests) {
    if (layout.layout === 'kaldi') await readKaldi(c, manifest, read);
    else {
      const text = await read(manifest);
      if (layout.layout === 'audiofolder') {
        if (manifest.endsWith('.jsonl')) readAudiofolderJsonl(c, manifest, text);
        else await readAudiofolderCsv(c, manifest, text);
      } else if (layout.layout === 'commonvoice') readCommonVoice(c, manifest, text);
      else readLibriSpeech(c, manifest, text);
    }
  }
  if (c.utterances.length === 0) fail(CORPUS_MESSAGES.noUtterances);
  return { layout: layout.layout, root: layout.root, utterances: c.utterances, metadata_fields: c.metadataFields };
}
