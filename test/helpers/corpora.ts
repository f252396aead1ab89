/**
 * Corpora built from real recordings (Debian's pocketsphinx-testdata: LibriVox read speech and the "cards"
 * utterances, each with its reference transcript), in each of the four layouts of DESIGN §10.1, and the
 * archives tests upload: zip (yazl), tar and tar.gz (node-tar), and hand-made hostile ones.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import yazl from 'yazl';
import * as tar from 'tar';
import { ffmpegPath } from '../../src/server/audio/decode.js';

const DATA = '/usr/share/pocketsphinx/test/data';

/** One recording with its transcript, as the package ships it (16 kHz mono WAV). */
export interface Recording {
  /** Short stable name (`austen-0880`, `cards-003`). */
  name: string;
  wav: string;
  text: string;
  /** Who reads it: the LibriVox reader or the cards speaker. */
  reader: 'austen' | 'cards';
}

/** `<s> words </s> (id)` lines of a Sphinx transcription file. */
function sphinxTranscripts(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^<s>\s*(.*?)\s*<\/s>\s*\((.+)\)\s*$/.exec(line.trim());
    if (m) out.set(m[2]!, m[1]!.replace(/\s+/g, ' '));
  }
  return out;
}

/** The ten recordings: five LibriVox sentences (one reader) and five "cards" utterances (another). */
export function recordings(): Recording[] {
  const austen = sphinxTranscripts(join(DATA, 'librivox/transcription'));
  const cards = sphinxTranscripts(join(DATA, 'cards/cards.transcription'));
  return [
    ...[...austen].map(([id, text]) => ({ name: `austen-${id.slice(-4)}`, wav: join(DATA, `librivox/${id}.wav`), text, reader: 'austen' as const })),
    ...[...cards].map(([id, text]) => ({ name: `cards-${id}`, wav: join(DATA, `cards/${id}.wav`), text, reader: 'cards' as const })),
  ];
}

/** Converts a recording into `out` (format from its extension): FLAC/OGG with sox, MP3/M4A with ffmpeg, WAV copied. */
export function convert(wav: string, out: string): void {
  mkdirSync(dirname(out), { recursive: true });
  if (out.endsWith('.wav')) copyFileSync(wav, out);
  else if (out.endsWith('.flac') || out.endsWith('.ogg')) execFileSync('sox', [wav, out]);
  else if (out.endsWith('.m4a')) execFileSync(ffmpegPath(), ['-loglevel', 'error', '-y', '-i', wav, '-c:a', 'aac', out]);
  else execFileSync(ffmpegPath(), ['-loglevel', 'error', '-y', '-i', wav, out]);
}

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

/** What a built corpus should read back as. */
export interface BuiltCorpus {
  layout: 'audiofolder' | 'commonvoice' | 'librispeech' | 'kaldi';
  utterances: { id: string; reference: string; speaker: string | null; metadata: Record<string, string> }[];
  metadataFields: string[];
}

/**
 * Writes a corpus of `recs` in `layout` under `dir` (inside one top folder `corpus/`, as people zip a
 * folder) and says what its utterances must read back as.
 */
export function buildCorpus(dir: string, layout: BuiltCorpus['layout'], recs: Recording[]): BuiltCorpus {
  const top = join(dir, 'corpus');
  const gender = (r: Recording) => (r.reader === 'austen' ? 'female' : 'male');
  if (layout === 'audiofolder') {
    const rows = recs.map((r, i) => {
      const file = `audio/${r.name}.${i % 2 ? 'flac' : 'ogg'}`;
      convert(r.wav, join(top, file));
      return { file, r };
    });
    write(join(top, 'metadata.csv'), ['file_name,transcription,speaker_id,gender', ...rows.map(({ file, r }) => `${file},"${r.text}",${r.reader},${gender(r)}`)].join('\n') + '\n');
    return {
      layout,
      metadataFields: ['gender'],
      utterances: rows.map(({ file, r }) => ({ id: file.replace(/\.\w+$/, ''), reference: r.text, speaker: r.reader, metadata: { gender: gender(r) } })),
    };
  }
  if (layout === 'commonvoice') {
    const lines = recs.map((r, i) => {
      const file = `${r.name}.${i % 2 ? 'm4a' : 'mp3'}`;
      convert(r.wav, join(top, 'clips', file));
      return { file, r, line: `client-${r.reader}\t${file}\t${r.text}\t2\t0\tthirties\t${gender(r)}\tEnglish\ten` };
    });
    write(join(top, 'test.tsv'), ['client_id\tpath\tsentence\tup_votes\tdown_votes\tage\tgender\taccents\tlocale', ...lines.map((l) => l.line)].join('\n') + '\n');
    return {
      layout,
      metadataFields: ['gender', 'age', 'accents', 'locale'],
      utterances: lines.map(({ file, r }) => ({
        id: `clips/${file.replace(/\.\w+$/, '')}`,
        reference: r.text,
        speaker: `client-${r.reader}`,
        metadata: { age: 'thirties', gender: gender(r), accents: 'English', locale: 'en' },
      })),
    };
  }
  if (layout === 'librispeech') {
    const bySpeaker = new Map<string, { id: string; r: Recording }[]>();
    recs.forEach((r, i) => {
      const spk = r.reader === 'austen' ? '1089' : '2300';
      const id = `${spk}-134686-${String(i).padStart(4, '0')}`;
      bySpeaker.set(spk, [...(bySpeaker.get(spk) ?? []), { id, r }]);
    });
    const utterances: BuiltCorpus['utterances'] = [];
    for (const [spk, items] of [...bySpeaker].sort()) {
      const chapterDir = join(top, 'test-clean', spk, '134686');
      for (const { id, r } of items) convert(r.wav, join(chapterDir, `${id}.flac`));
      write(join(chapterDir, `${spk}-134686.trans.txt`), items.map(({ id, r }) => `${id} ${r.text.toUpperCase()}`).join('\n') + '\n');
      utterances.push(...items.map(({ id, r }) => ({ id, reference: r.text.toUpperCase(), speaker: spk, metadata: { chapter: '134686' } })));
    }
    return { layout, metadataFields: ['chapter'], utterances };
  }
  const items = recs.map((r, i) => ({ id: `utt${i}`, r, file: `wav/${r.name}.${i % 2 ? 'wav' : 'ogg'}` }));
  for (const { r, file } of items) convert(r.wav, join(top, file));
  write(join(top, 'data/test/wav.scp'), items.map(({ id, file }) => `${id} ${file}`).join('\n') + '\n');
  write(join(top, 'data/test/text'), items.map(({ id, r }) => `${id} ${r.text}`).join('\n') + '\n');
  write(join(top, 'data/test/utt2spk'), items.map(({ id, r }) => `${id} ${r.reader}`).join('\n') + '\n');
  write(join(top, 'data/test/spk2gender'), 'austen f\ncards m\n');
  return {
    layout: 'kaldi',
    metadataFields: ['gender'],
    utterances: items.map(({ id, r }) => ({ id, reference: r.text, speaker: r.reader, metadata: { gender: r.reader === 'austen' ? 'f' : 'm' } })),
  };
}

/** A tar (or .tar.gz) of `dir`'s content, as node-tar writes it. */
export async function tarOf(dir: string, opts: { gzip?: boolean } = {}): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stream = tar.c({ cwd: dir, gzip: opts.gzip ?? false, portable: true }, ['.']);
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** A zip of the given entries (names exactly as given; `mode` for unix types such as symlinks; `mtime` for the same bytes every run). */
export async function zipOf(entries: { name: string; data?: Buffer | string; mode?: number; dir?: boolean; mtime?: Date }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) {
    const options = { ...(e.mode === undefined ? {} : { mode: e.mode }), ...(e.mtime === undefined ? {} : { mtime: e.mtime }) };
    if (e.dir) zip.addEmptyDirectory(e.name, options);
    else zip.addBuffer(Buffer.from(e.data ?? ''), e.name, options);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** A zip of every file under `dir` (relative names). */
export async function zipDir(dir: string): Promise<Buffer> {
  const names = execFileSync('find', ['.', '-type', 'f'], { cwd: dir, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((n) => n.replace(/^\.\//, ''))
    .sort();
  return zipOf(names.map((name) => ({ name, data: readFileSync(join(dir, name)) })));
}

/** A raw tar of hand-made headers: any type, any path (absolute, `..`), links to anywhere. */
export function rawTar(entries: { path: string; type?: string; data?: Buffer | string; linkpath?: string }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const data = Buffer.from(e.data ?? '');
    const header = new tar.Header({
      path: e.path,
      type: (e.type ?? 'File') as tar.Header['type'],
      size: data.length,
      mode: 0o644,
      uid: 0,
      gid: 0,
      mtime: new Date(0),
      ...(e.linkpath ? { linkpath: e.linkpath } : {}),
    });
    header.encode();
    blocks.push(header.block!, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** Replaces every occurrence of `from` with `to` (same length) in a zip: names yazl would refuse. */
/** The zip with every central directory entry's "version made by" host set to `host` (19: OS X, 0: MS-DOS). */
export function patchZipHost(zip: Buffer, host: number): Buffer {
  const out = Buffer.from(zip);
  const signature = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
  for (let at = out.indexOf(signature); at >= 0; at = out.indexOf(signature, at + 1)) out[at + 5] = host;
  return out;
}

export function patchZipName(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('patchZipName keeps offsets: same length only');
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  for (let at = out.indexOf(needle); at >= 0; at = out.indexOf(needle, at + 1)) Buffer.from(to).copy(out, at);
  return out;
}
