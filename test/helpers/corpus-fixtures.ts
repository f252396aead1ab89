// Corpora of real human speech for the tests, built from Debian's pocketsphinx-testdata recordings in
// each layout of DESIGN §10.1 (FLAC, OGG Vorbis and WAV through sox), plus archives of them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where Debian's pocketsphinx-testdata keeps its recordings. */
export const TESTDATA = '/usr/share/pocketsphinx/test/data';

/** One recorded utterance with its reference, speaker and the speaker's gender. */
export interface Recording {
  /** A short id of our own (`ls0870`, `cards001`). */
  id: string;
  source: string;
  text: string;
  speaker: string;
  gender: string;
}

const LIBRIVOX = [
  ['0870', 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them'],
  ['0880', 'he was not an ill disposed young man'],
  ['0890', 'unless to be rather cold hearted and rather selfish is to be ill disposed'],
  ['0920', 'had he married a more a amiable woman he might have been made still more respectable than he was'],
  ['0930', 'he might even have been made amiable himself'],
] as const;

const CARDS = [
  ['001', 'ten of clubs'],
  ['002', 'four queen of clubs'],
  ['003', 'seven of clubs'],
  ['004', 'five five'],
  ['005', 'eight of spades four of clubs seven of hearts'],
] as const;

/** The ten read utterances of the test data: five LibriVox sentences (one reader) and five card names (another). */
export function recordings(): Recording[] {
  return [
    ...LIBRIVOX.map(([n, text]) => ({
      id: `ls${n}`,
      source: join(TESTDATA, 'librivox', `sense_and_sensibility_01_austen_64kb-${n}.wav`),
      text,
      speaker: 'reader1',
      gender: 'female',
    })),
    ...CARDS.map(([n, text]) => ({ id: `cards${n}`, source: join(TESTDATA, 'cards', `${n}.wav`), text, speaker: 'cards', gender: 'male' })),
  ];
}

/** Converts `src` to `dest` with sox (the format follows the extension: .flac, .ogg, .wav). */
export function convert(src: string, dest: string): void {
  mkdirSync(dirname(dest), { recursive: true });
  execFileSync('sox', [src, dest]);
}

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

/** The four layouts of DESIGN §10.1. */
export type Layout = 'audiofolder' | 'commonvoice' | 'librispeech' | 'kaldi';
export const LAYOUTS: readonly Layout[] = ['audiofolder', 'commonvoice', 'librispeech', 'kaldi'];

/**
 * Writes `recs` under `dir` in `layout`: audiofolder (metadata.csv, FLAC, speaker_id and gender unless
 * `speakers: false`),
 * Common Voice (test.tsv, OGG Vorbis under clips/), LibriSpeech (speaker/chapter folders, FLAC,
 * upper-case trans.txt) or Kaldi (wav.scp, text, utt2spk, spk2gender, WAV). Returns `dir`.
 */
export function buildCorpus(dir: string, layout: Layout, recs: readonly Recording[] = recordings(), opts: { speakers?: boolean } = {}): string {
  mkdirSync(dir, { recursive: true });
  switch (layout) {
    case 'audiofolder': {
      // Without speakers: no speaker_id nor gender column (each utterance is then its own block).
      const withSpeakers = opts.speakers !== false;
      const lines = [withSpeakers ? 'file_name,transcription,speaker_id,gender' : 'file_name,transcription'];
      for (const r of recs) {
        convert(r.source, join(dir, 'audio', `${r.id}.flac`));
        lines.push(withSpeakers ? `audio/${r.id}.flac,${r.text},${r.speaker},${r.gender}` : `audio/${r.id}.flac,${r.text}`);
      }
      write(join(dir, 'metadata.csv'), lines.join('\n') + '\n');
      break;
    }
    case 'commonvoice': {
      const lines = ['client_id\tpath\tsentence\tup_votes\tdown_votes\tage\tgender\taccents\tlocale'];
      for (const r of recs) {
        convert(r.source, join(dir, 'clips', `${r.id}.ogg`));
        lines.push(`${r.speaker}\t${r.id}.ogg\t${r.text}\t2\t0\tfifties\t${r.gender}\tEngland English\ten`);
      }
      write(join(dir, 'test.tsv'), lines.join('\n') + '\n');
      break;
    }
    case 'librispeech': {
      const bySpeaker = new Map<string, Recording[]>();
      recs.forEach((r) => bySpeaker.set(r.speaker, [...(bySpeaker.get(r.speaker) ?? []), r]));
      let spk = 100;
      for (const [, list] of bySpeaker) {
        const chapter = '2000';
        const lines: string[] = [];
        list.forEach((r, i) => {
          const id = `${spk}-${chapter}-${String(i).padStart(4, '0')}`;
          convert(r.source, join(dir, String(spk), chapter, `${id}.flac`));
          lines.push(`${id} ${r.text.toUpperCase()}`);
        });
        write(join(dir, String(spk), chapter, `${spk}-${chapter}.trans.txt`), lines.join('\n') + '\n');
        spk++;
      }
      break;
    }
    case 'kaldi': {
      const scp: string[] = [];
      const text: string[] = [];
      const utt2spk: string[] = [];
      const genders = new Map<string, string>();
      for (const r of recs) {
        const utt = `${r.speaker}-${r.id}`;
        convert(r.source, join(dir, 'wav', `${r.id}.wav`));
        scp.push(`${utt} wav/${r.id}.wav`);
        text.push(`${utt} ${r.text}`);
        utt2spk.push(`${utt} ${r.speaker}`);
        genders.set(r.speaker, r.gender === 'female' ? 'f' : 'm');
      }
      write(join(dir, 'wav.scp'), scp.join('\n') + '\n');
      write(join(dir, 'text'), text.join('\n') + '\n');
      write(join(dir, 'utt2spk'), utt2spk.join('\n') + '\n');
      write(join(dir, 'spk2gender'), [...genders].map(([s, g]) => `${s} ${g}`).join('\n') + '\n');
      break;
    }
  }
  return dir;
}

/** Packs `dir` (as one top folder) into `archive`: .zip with zip(1), .tar/.tar.gz/.tgz with the tar package. */
export async function packCorpus(dir: string, archive: string): Promise<string> {
  const top = dir.split('/').pop()!;
  const parent = dirname(dir);
  if (archive.endsWith('.zip')) {
    execFileSync('zip', ['-q', '-r', '-X', archive, top], { cwd: parent });
    return archive;
  }
  const tar = await import('tar');
  await tar.create({ cwd: parent, file: archive, gzip: /\.(tar\.gz|tgz)$/.test(archive), portable: true }, [top]);
  return archive;
}

/** A recorded call as its STM states it: segments of who read what when (seconds). */
export interface StmCall {
  id: string;
  segments: { speaker: string; start: number; end: number; text: string }[];
}

/**
 * Writes recorded calls in the `stm` layout (DESIGN §16.5) under `dir/corpus/calls/`: each call the given
 * recordings joined by sox with `gapSeconds` of silence between, as `{id}.flac`, and its `{id}.stm` (a `;;`
 * comment, a `<o,f0,…>` label on each line, times with 3 decimals). Returns `dir/corpus` and the calls' truth.
 */
export function buildStmCorpus(dir: string, calls: readonly { id: string; turns: readonly Recording[] }[], gapSeconds = 0.4): { dir: string; calls: StmCall[] } {
  const top = join(dir, 'corpus');
  const work = join(dir, 'pieces');
  mkdirSync(work, { recursive: true });
  const silence = join(work, 'silence.wav');
  execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', silence, 'trim', '0', String(gapSeconds)]);
  const out: StmCall[] = [];
  for (const call of calls) {
    const pieces: string[] = [];
    const segments: StmCall['segments'] = [];
    let t = 0;
    call.turns.forEach((r, k) => {
      const piece = join(work, `${call.id}-${k}.wav`);
      execFileSync('sox', [r.source, '-r', '16000', '-c', '1', '-b', '16', piece]);
      const seconds = Number(execFileSync('soxi', ['-D', piece], { encoding: 'utf8' }).trim());
      if (k > 0) {
        pieces.push(silence);
        t += gapSeconds;
      }
      pieces.push(piece);
      segments.push({ speaker: r.speaker, start: Math.round(t * 1000) / 1000, end: Math.round((t + seconds) * 1000) / 1000, text: r.text });
      t += seconds;
    });
    mkdirSync(join(top, 'calls'), { recursive: true });
    execFileSync('sox', [...pieces, join(top, 'calls', `${call.id}.flac`)]);
    const lines = segments.map((s) => `${call.id} 1 ${s.speaker} ${s.start.toFixed(3)} ${s.end.toFixed(3)} <o,f0,${s.speaker === 'cards' ? 'male' : 'female'}> ${s.text}`);
    write(join(top, 'calls', `${call.id}.stm`), [';; recorded call, read speech of pocketsphinx-testdata', ...lines, ''].join('\n'));
    out.push({ id: call.id, segments });
  }
  return { dir: top, calls: out };
}
