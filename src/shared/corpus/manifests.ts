/**
 * Reads the manifests of a detected layout into utterance records and applies every line rule of DESIGN
 * §10.2/§10.3: transcript present, audio in the archive, ids unique, reference text rules (rule 6 at
 * 10,000 code points), 1..20,000 utterances, and DESIGN §17.2's bounds (64 MB a manifest, 1 MB a line,
 * UTF-8). Manifests are read line by line in slices that give the event loop back, and a reader stops at
 * the first problem in file order, which is thrown; nothing is decoded here, so the CLI can run the same
 * checks before an upload starts.
 */
import { posix } from 'node:path';
import { CORPUS_LIMITS, type CorpusLayoutName } from '../constants.js';
import { DomainError, validationFailed } from '../errors.js';
import { codePoints, hasLoneSurrogate, isSpeakable, TEXT_MESSAGES } from '../text-rules.js';
import { CORPUS_MESSAGES } from './messages.js';
import { detectCorpusLayout, SPEAKER_COLUMNS, TRANSCRIPT_COLUMNS, type DetectedLayout } from './layout.js';
import { dirOf, joinInside, withoutExtension } from './paths.js';
import { csvRecords, MalformedCsvError, type CsvRecord } from './csv.js';
import { checkedText, filesFromReader, manifestLines, readManifest, type ManifestFiles, type ManifestLine, type ReadText } from './manifest-files.js';

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
  /** A recorded call (the `stm` layout, DESIGN §16.5): its scored segments in order of start; the reference is their words. */
  segments?: CallSegment[];
}

/** One segment of a recorded call's STM: who spoke which words when (seconds from the file's start). */
export interface CallSegment {
  speaker: string;
  start: number;
  end: number;
  text: string;
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
    // A call's reference is hours of words: the rule holds for each segment, as for an utterance.
    if (u.segments) for (const s of u.segments) checkReference(u.utterance_id, s.text);
    else checkReference(u.utterance_id, reference);
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
async function readAudiofolderCsv(c: Collector, manifest: string, bytes: Uint8Array): Promise<void> {
  const text = await checkedText(bytes, c.display(manifest));
  const records = csvRecords(text);
  const next = async (): Promise<CsvRecord | undefined> => {
    try {
      return (await records.next()).value ?? undefined;
    } catch (err) {
      if (err instanceof MalformedCsvError) fail(CORPUS_MESSAGES.malformedCsv(c.display(manifest), err.line, err.reason));
      throw err;
    }
  };
  try {
    const header = await next();
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
    for (let row = await next(); row; row = await next()) {
      const { line, cells } = row;
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
  } finally {
    await records.return(undefined);
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
async function readAudiofolderJsonl(c: Collector, manifest: string, bytes: Uint8Array): Promise<void> {
  const dir = dirOf(manifest);
  let transcriptKey: string | undefined;
  for await (const { line, text: raw } of manifestLines(bytes, c.display(manifest), { skipBlank: true })) {
    if (raw.trim() === '') continue;
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
  }
}

/** Common Voice metadata columns (DESIGN §10.1). */
const COMMON_VOICE_METADATA = ['gender', 'age', 'accents', 'accent', 'locale'];

/** Common Voice `.tsv`: tab-separated without quoting, header line 1; audio under `clips/` or beside. */
async function readCommonVoice(c: Collector, manifest: string, bytes: Uint8Array): Promise<void> {
  const lines = manifestLines(bytes, c.display(manifest), { skipBlank: true });
  const first = (await lines.next()).value as ManifestLine | undefined;
  const header = (first?.line === 1 ? first.text : '').split('\t').map((h) => h.trim());
  const col = (name: string) => header.indexOf(name);
  const [pathCol, sentenceCol, clientCol] = [col('path'), col('sentence'), col('client_id')];
  const meta = COMMON_VOICE_METADATA.filter((m) => header.includes(m));
  for (const m of meta) c.field(m);
  const dir = dirOf(manifest);
  const rest = first && first.line !== 1 ? [first] : [];
  for await (const { line, text: raw } of (async function* () {
    yield* rest;
    yield* lines;
  })()) {
    if (raw.trim() === '') continue;
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
async function* idLines(bytes: Uint8Array, display: string): AsyncGenerator<{ line: number; id: string; rest: string }> {
  for await (const { line, text } of manifestLines(bytes, display, { skipBlank: true })) {
    const m = /^\s*(\S+)(?:\s+(.*))?$/.exec(text);
    if (m) yield { line, id: m[1]!, rest: (m[2] ?? '').trim() };
  }
}

/** LibriSpeech `*.trans.txt`: audio `{id}.flac` or `.wav` beside; speaker and chapter from the id. */
async function readLibriSpeech(c: Collector, manifest: string, bytes: Uint8Array): Promise<void> {
  const dir = dirOf(manifest);
  for await (const { line, id, rest } of idLines(bytes, c.display(manifest))) {
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

/** The audio extensions a recorded call may have beside its STM (DESIGN §16.5), in order of preference. */
const CALL_AUDIO = ['wav', 'flac', 'mp3', 'ogg', 'm4a'] as const;
/** NIST's markers of regions that are not scored: such segments are left out of the truth. */
const UNSCORED = /^(ignore_time_segment_in_scoring|inter_segment_gap)$/i;

/**
 * A NIST STM file (DESIGN §16.5): one recorded call, `{name}.stm` beside `{name}.wav|flac|mp3|ogg|m4a`. Each
 * line is `{file} {channel} {speaker} {start} {end} [<label>] {words}`; `;;` lines are comments. The call's
 * id is the file's name; its reference is the words of its segments in order of start.
 */
async function readStm(c: Collector, manifest: string, bytes: Uint8Array): Promise<void> {
  const dir = dirOf(manifest);
  const id = posix.basename(withoutExtension(manifest));
  const segments: CallSegment[] = [];
  for await (const { line, text } of manifestLines(bytes, c.display(manifest), { skipBlank: true })) {
    if (text.trimStart().startsWith(';;')) continue;
    const f = text.trim().split(/\s+/);
    const start = Number(f[3]);
    const end = Number(f[4]);
    if (f.length < 5 || !Number.isFinite(start) || !Number.isFinite(end) || start < 0 || end < start) fail(CORPUS_MESSAGES.stmSegment(c.display(manifest), line));
    const words = (/^<.*>$/.test(f[5] ?? '') ? f.slice(6) : f.slice(5)).join(' ');
    if (words === '' || UNSCORED.test(words) || UNSCORED.test(f[2]!)) continue;
    segments.push({ speaker: f[2]!, start, end, text: words });
  }
  if (segments.length === 0) c.missingTranscript(manifest, 1);
  segments.sort((a, b) => a.start - b.start || a.end - b.end);
  const candidates = CALL_AUDIO.map((ext) => joinInside(dir, `${id}.${ext}`));
  const audio = c.audio(manifest, 1, candidates, c.display(candidates[0] ?? `${dir}/${id}.wav`));
  c.add({ utterance_id: id, audio_path: audio, reference: segments.map((s) => s.text).join(' '), speaker: null, metadata: {}, manifest, line: 1, segments });
}

/** A wav.scp value that is a command (Kaldi's `cmd args |` pipes, or anything with arguments): never run. */
const isCommand = (value: string): boolean => value.endsWith('|') || value.startsWith('|') || /\s/.test(value);

/**
 * A Kaldi data dir: `wav.scp` (utterances), `text`, optional `utt2spk` and `spk2gender`. The ids of wav.scp
 * are read first (no more than can be kept), so the tables keep only the rows those ids need: a `text` of
 * millions of other lines is scanned, not held.
 */
async function readKaldi(c: Collector, wavScp: string, files: ManifestFiles, max: number): Promise<void> {
  const dir = dirOf(wavScp);
  const sibling = (name: string) => (dir === '' ? name : `${dir}/${name}`);
  const bytesOf = (path: string) => readManifest(files, path, c.display(path));
  const scp = await bytesOf(wavScp);
  const wanted = new Set<string>();
  for await (const { id } of idLines(scp, c.display(wavScp))) {
    wanted.add(id);
    if (wanted.size > max) break;
  }
  const table = async (name: string, keep: (id: string) => boolean) => {
    const path = sibling(name);
    if (!c.layout.files.has(path)) return undefined;
    const rows = new Map<string, { line: number; rest: string }>();
    for await (const t of idLines(await bytesOf(path), c.display(path))) if (keep(t.id)) rows.set(t.id, t);
    return rows;
  };
  const textPath = sibling('text');
  const texts = (await table('text', (id) => wanted.has(id)))!;
  const utt2spk = await table('utt2spk', (id) => wanted.has(id));
  const speakers = new Set([...(utt2spk?.values() ?? [])].map((t) => t.rest));
  const spk2gender = await table('spk2gender', (id) => speakers.has(id));
  if (spk2gender) c.field('gender');
  for await (const { line, id, rest } of idLines(scp, c.display(wavScp))) {
    if (isCommand(rest)) fail(CORPUS_MESSAGES.commandPipeline(c.display(wavScp), line));
    const transcript = texts.get(id);
    if (!transcript) c.missingTranscript(wavScp, line);
    if (transcript!.rest === '') c.missingTranscript(textPath, transcript!.line);
    const audio = c.audio(wavScp, line, [joinInside(dir, rest), joinInside('', rest), joinInside(c.layout.root, rest)], rest);
    const speaker = utt2spk?.get(id)?.rest || null;
    const gender = speaker ? spk2gender?.get(speaker)?.rest : undefined;
    c.add({ utterance_id: id, audio_path: audio, reference: transcript!.rest, speaker, metadata: gender ? { gender } : {}, manifest: wavScp, line });
  }
}

/**
 * Detects the layout of `paths` and reads its manifests into utterances (see `detectCorpusLayout` for the
 * form of the paths). Throws the first problem as a 400 DomainError with DESIGN's exact message.
 */
export async function parseCorpus(paths: readonly string[], source: ManifestFiles | ReadText, opts: CorpusParseOptions = {}): Promise<ParsedCorpus> {
  const files = typeof source === 'function' ? filesFromReader(source) : source;
  const layout = await detectCorpusLayout(paths, files);
  const max = opts.maxUtterances ?? CORPUS_LIMITS.utterances;
  const c = new Collector(layout, max);
  for (const manifest of layout.manifests) {
    if (layout.layout === 'kaldi') await readKaldi(c, manifest, files, max);
    else {
      const bytes = await readManifest(files, manifest, c.display(manifest));
      if (layout.layout === 'audiofolder') {
        if (manifest.endsWith('.jsonl')) await readAudiofolderJsonl(c, manifest, bytes);
        else await readAudiofolderCsv(c, manifest, bytes);
      } else if (layout.layout === 'commonvoice') await readCommonVoice(c, manifest, bytes);
      else if (layout.layout === 'stm') await readStm(c, manifest, bytes);
      else await readLibriSpeech(c, manifest, bytes);
    }
  }
  if (c.utterances.length === 0) fail(CORPUS_MESSAGES.noUtterances);
  return { layout: layout.layout, root: layout.root, utterances: c.utterances, metadata_fields: c.metadataFields };
}
