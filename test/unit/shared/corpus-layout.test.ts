import { describe, expect, it } from 'vitest';
import { CORPUS_MESSAGES, parseCorpus, normalizeArchivePath, commonTopFolder, type ParsedCorpus } from '../../../src/shared/corpus/index.js';
import { DomainError } from '../../../src/shared/errors.js';

/** A corpus as files: manifests with their text, audio files with '' (only their paths matter here). */
type Files = Record<string, string>;

const parse = (files: Files, opts = {}): Promise<ParsedCorpus> =>
  parseCorpus(Object.keys(files), async (p) => {
    if (!(p in files)) throw new Error(`read of a file not in the list: ${p}`);
    return files[p]!;
  }, opts);

const failure = async (files: Files, opts = {}): Promise<string> => {
  const err = await parse(files, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'expected the corpus to be refused').toBeInstanceOf(DomainError);
  return (err as DomainError).message;
};

const UNRECOGNISED = CORPUS_MESSAGES.unrecognised;

describe('corpus layouts (DESIGN §10.1)', () => {
  const ok: { name: string; files: Files; expected: Partial<ParsedCorpus> & { ids: string[]; first?: object } }[] = [
    {
      name: 'audiofolder metadata.csv inside one top folder, speaker and metadata columns',
      files: {
        'calls/metadata.csv': 'file_name,transcription,speaker_id,gender,channel\na.wav,hello there,s1,female,left\nsub/b.flac,"good, morning",s2,,right\n',
        'calls/a.wav': '',
        'calls/sub/b.flac': '',
      },
      expected: {
        layout: 'audiofolder',
        root: 'calls/',
        ids: ['a', 'sub/b'],
        metadata_fields: ['gender', 'channel'],
        first: { utterance_id: 'a', audio_path: 'calls/a.wav', reference: 'hello there', speaker: 's1', metadata: { gender: 'female', channel: 'left' }, manifest: 'metadata.csv', line: 2 },
      },
    },
    {
      name: 'audiofolder with `text` and no speaker; a blank line keeps the numbering',
      files: { 'metadata.csv': 'file_name,text\n\nx.mp3,one two\n', 'x.mp3': '' },
      expected: { layout: 'audiofolder', root: '', ids: ['x'], first: { speaker: null, line: 3, metadata: {} } },
    },
    {
      name: 'audiofolder metadata.jsonl with client_id as speaker',
      files: {
        'd/metadata.jsonl': '{"file_name":"clips/1.ogg","sentence":"first one","client_id":"c9","age":30}\n{"file_name":"clips/2.ogg","sentence":"second"}\n',
        'd/clips/1.ogg': '',
        'd/clips/2.ogg': '',
      },
      expected: { layout: 'audiofolder', ids: ['clips/1', 'clips/2'], metadata_fields: ['age'], first: { speaker: 'c9', metadata: { age: '30' }, line: 1 } },
    },
    {
      name: 'Common Voice: test.tsv wins over validated.tsv; clips/ folder; metadata columns',
      files: {
        'cv/en/test.tsv': 'client_id\tpath\tsentence\tup_votes\tage\tgender\taccents\tlocale\nabc\tc1.mp3\tHello world\t2\ttwenties\tmale\tUS\ten\n',
        'cv/en/validated.tsv': 'client_id\tpath\tsentence\nabc\tc2.mp3\tNot this one\n',
        'cv/en/clips/c1.mp3': '',
        'cv/en/clips/c2.mp3': '',
      },
      expected: {
        layout: 'commonvoice',
        ids: ['clips/c1'],
        metadata_fields: ['gender', 'age', 'accents', 'locale'],
        first: { speaker: 'abc', metadata: { age: 'twenties', gender: 'male', accents: 'US', locale: 'en' }, manifest: 'en/test.tsv', line: 2 },
      },
    },
    {
      name: 'Common Voice: the only .tsv, audio beside it',
      files: { 'train.tsv': 'path\tsentence\taccent\na.wav\tsay "hi"\t\n', 'a.wav': '' },
      expected: { layout: 'commonvoice', ids: ['a'], first: { reference: 'say "hi"', speaker: null, metadata: {} } },
    },
    {
      name: 'LibriSpeech: speaker and chapter from the id, flac or wav',
      files: {
        'LibriSpeech/test-clean/84/121123/84-121123.trans.txt': '84-121123-0000 GO DO YOU HEAR\n84-121123-0001 BUT IN LESS THAN FIVE MINUTES\n',
        'LibriSpeech/test-clean/84/121123/84-121123-0000.flac': '',
        'LibriSpeech/test-clean/84/121123/84-121123-0001.wav': '',
      },
      expected: {
        layout: 'librispeech',
        root: 'LibriSpeech/',
        ids: ['84-121123-0000', '84-121123-0001'],
        metadata_fields: ['chapter'],
        first: { speaker: '84', metadata: { chapter: '121123' }, manifest: 'test-clean/84/121123/84-121123.trans.txt', audio_path: 'LibriSpeech/test-clean/84/121123/84-121123-0000.flac' },
      },
    },
    {
      name: 'Kaldi: wav.scp + text + utt2spk + spk2gender, paths relative to the corpus root',
      files: {
        'data/test/wav.scp': 'u1 wav/u1.wav\nu2 data/test/u2.flac\n',
        'data/test/text': 'u1 turn left\nu2 turn right\n',
        'data/test/utt2spk': 'u1 spkA\nu2 spkB\n',
        'data/test/spk2gender': 'spkA f\nspkB m\n',
        'wav/u1.wav': '',
        'data/test/u2.flac': '',
      },
      expected: { layout: 'kaldi', ids: ['u1', 'u2'], metadata_fields: ['gender'], first: { speaker: 'spkA', metadata: { gender: 'f' }, manifest: 'data/test/wav.scp', line: 1 } },
    },
    {
      name: 'Kaldi without utt2spk: no speaker; macOS debris ignored',
      files: { 'k/wav.scp': 'a a.wav\n', 'k/text': 'a yes\n', 'k/a.wav': '', '__MACOSX/k/._a.wav': '', 'k/.DS_Store': '' },
      expected: { layout: 'kaldi', root: 'k/', ids: ['a'], metadata_fields: [], first: { speaker: null } },
    },
  ];

  it.each(ok)('$name', async ({ files, expected }) => {
    const { ids, first, ...rest } = expected;
    const corpus = await parse(files);
    expect(corpus).toMatchObject(rest);
    expect(corpus.utterances.map((u) => u.utterance_id)).toEqual(ids);
    if (first) expect(corpus.utterances[0]).toMatchObject(first);
  });

  const bad: { name: string; files: Files; message: string; opts?: object }[] = [
    { name: 'no manifest at all', files: { 'a.wav': '', 'notes.txt': 'x' }, message: UNRECOGNISED },
    { name: 'two layouts at once', files: { 'metadata.csv': 'file_name,text\na.wav,hi\n', 'a.wav': '', '1-2.trans.txt': '1-2-3 HI\n', '1-2-3.flac': '' }, message: UNRECOGNISED },
    // A manifest of a layout whose header lacks columns is named with what it lacks (issue 30), the prefix kept.
    {
      name: 'metadata.csv without a transcript column',
      files: { 'metadata.csv': 'file_name,label\na.wav,x\n', 'a.wav': '' },
      message: 'Unrecognised corpus layout: metadata.csv lacks a transcript column (transcription, text, sentence or transcript); its header has file_name, label',
    },
    {
      name: 'a typo in the transcript column (transcripton)',
      files: { 'calls/metadata.csv': 'file_name,transcripton,speaker_id\na.wav,hi,s1\n', 'calls/a.wav': '' },
      message: 'Unrecognised corpus layout: metadata.csv lacks a transcript column (transcription, text, sentence or transcript); its header has file_name, transcripton, speaker_id',
    },
    {
      name: 'metadata.jsonl without file_name',
      files: { 'metadata.jsonl': '{"file":"a.wav","text":"hi"}\n', 'a.wav': '' },
      message: 'Unrecognised corpus layout: metadata.jsonl lacks the column file_name; its header has file, text',
    },
    {
      name: 'a Common Voice .tsv with a typo in sentence',
      files: { 'test.tsv': 'client_id\tpath\tsentense\nc\tx.mp3\thi\n', 'clips/x.mp3': '' },
      message: 'Unrecognised corpus layout: test.tsv lacks the column sentence; its header has client_id, path, sentense',
    },
    { name: 'an unrelated .tsv is no manifest', files: { 'notes.tsv': 'a\tb\n1\t2\n', 'a.wav': '' }, message: UNRECOGNISED },
    { name: 'several .tsv files and neither test nor validated', files: { 'a.tsv': 'path\tsentence\nx.mp3\thi\n', 'b.tsv': 'path\tsentence\ny.mp3\thi\n' }, message: UNRECOGNISED },
    { name: 'wav.scp without text', files: { 'wav.scp': 'u a.wav\n', 'a.wav': '' }, message: UNRECOGNISED },
    { name: 'header only', files: { 'metadata.csv': 'file_name,text\n' }, message: CORPUS_MESSAGES.noUtterances },
    { name: 'missing transcript (csv line 3)', files: { 'metadata.csv': 'file_name,text\na.wav,hi\nb.wav,  \n', 'a.wav': '', 'b.wav': '' }, message: 'metadata.csv:3: missing transcript' },
    { name: 'missing transcript (trans.txt)', files: { 'x/1-2.trans.txt': '1-2-1 A\n1-2-2\n', 'x/1-2-1.flac': '', 'x/1-2-2.flac': '', 'README.TXT': '' }, message: 'x/1-2.trans.txt:2: missing transcript' },
    { name: 'missing transcript (Kaldi text without the id)', files: { 'wav.scp': 'u1 a.wav\nu2 b.wav\n', text: 'u1 hi\n', 'a.wav': '', 'b.wav': '' }, message: 'wav.scp:2: missing transcript' },
    { name: 'missing transcript (Common Voice)', files: { 'test.tsv': 'path\tsentence\na.mp3\t\n', 'clips/a.mp3': '' }, message: 'test.tsv:2: missing transcript' },
    { name: 'audio not found (audiofolder)', files: { 'top/metadata.csv': 'file_name,text\nmissing.wav,hi\n', 'top/other.wav': '' }, message: 'metadata.csv:2: audio file not found in the archive: missing.wav' },
    { name: 'audio not found (file_name climbing out)', files: { 'metadata.csv': 'file_name,text\n../etc/passwd,hi\n', 'a.wav': '' }, message: 'metadata.csv:2: audio file not found in the archive: ../etc/passwd' },
    { name: 'audio not found (Common Voice)', files: { 'test.tsv': 'path\tsentence\nnope.mp3\thi\n', 'clips/a.mp3': '' }, message: 'test.tsv:2: audio file not found in the archive: nope.mp3' },
    { name: 'audio not found (LibriSpeech)', files: { 'd/1-2.trans.txt': '1-2-9 HI\n', 'd/1-2-1.flac': '', 'LICENSE': '' }, message: 'd/1-2.trans.txt:1: audio file not found in the archive: d/1-2-9.flac' },
    { name: 'audio not found (Kaldi)', files: { 'wav.scp': 'u1 /abs/a.wav\n', text: 'u1 hi\n' }, message: 'wav.scp:1: audio file not found in the archive: /abs/a.wav' },
    { name: 'a wav.scp command pipeline', files: { 'wav.scp': 'u1 sox a.wav -t wav - |\n', text: 'u1 hi\n', 'a.wav': '' }, message: 'wav.scp:1: command pipelines are not supported, only file paths' },
    { name: 'duplicate id across two metadata files', files: { 'a/metadata.csv': 'file_name,text\nx.wav,hi\n', 'b/metadata.csv': 'file_name,text\nx.wav,hi\n', 'a/x.wav': '', 'b/x.wav': '' }, message: 'Duplicate utterance id: x' },
    { name: 'duplicate id within one manifest', files: { 'metadata.csv': 'file_name,text\na.wav,hi\na.wav,again\n', 'a.wav': '' }, message: 'Duplicate utterance id: a' },
    { name: 'duplicate id (Kaldi)', files: { 'wav.scp': 'u1 a.wav\nu1 b.wav\n', text: 'u1 hi\n', 'a.wav': '', 'b.wav': '' }, message: 'Duplicate utterance id: u1' },
    { name: 'a reference with nothing to speak', files: { 'metadata.csv': 'file_name,text\na.wav,!!! ...\n', 'a.wav': '' }, message: 'Utterance a: Text has nothing to speak' },
    { name: 'a reference over 10,000 code points', files: { 'metadata.csv': `file_name,text\na.wav,${'é'.repeat(10_001)}\n`, 'a.wav': '' }, message: 'Utterance a: Text exceeds maximum length of 10000 characters' },
    // Bytes of a file are UTF-8 or refused (DESIGN §17.2): a lone surrogate reaches a reference only as a JSON escape.
    { name: 'a lone surrogate', files: { 'metadata.jsonl': '{"file_name":"u.wav","text":"bad \\ud800 text"}\n', 'u.wav': '' }, message: 'Utterance u: Text contains a lone surrogate (not valid Unicode)' },
    { name: 'more utterances than the limit', files: { 'wav.scp': 'a a.wav\nb a.wav\nc a.wav\n', text: 'a x\nb y\nc z\n', 'a.wav': '' }, opts: { maxUtterances: 2 }, message: CORPUS_MESSAGES.tooManyUtterances },
    { name: 'invalid JSON line', files: { 'metadata.jsonl': '{"file_name":"a.wav","text":"hi"}\n{oops\n', 'a.wav': '' }, message: 'metadata.jsonl:2: invalid JSON' },
    { name: 'malformed CSV', files: { 'metadata.csv': 'file_name,text\na.wav,"unclosed\n', 'a.wav': '' }, message: 'metadata.csv:2: malformed CSV: unclosed quoted field' },
  ];

  it.each(bad)('refuses: $name', async ({ files, message, opts }) => {
    expect(await failure(files, opts)).toBe(message);
  });

  it('says 20000 in the limit message and 10 GiB / 2 GiB in the archive messages', () => {
    expect(CORPUS_MESSAGES.tooManyUtterances).toBe('Corpus exceeds 20000 utterances');
    expect(CORPUS_MESSAGES.tooManyEntries).toBe('Archive has more than 100000 entries');
    expect(UNRECOGNISED).toBe(
      'Unrecognised corpus layout: expected metadata.csv, a Common Voice .tsv, LibriSpeech *.trans.txt or a Kaldi wav.scp with text',
    );
  });

  it('normalises archive paths and finds one common top folder', () => {
    expect(normalizeArchivePath('./a//b/')).toBe('a/b');
    expect(normalizeArchivePath('a/../../x')).toBeUndefined();
    expect(normalizeArchivePath('/etc/passwd')).toBeUndefined();
    expect(commonTopFolder(['t/a', 't/b/c'])).toBe('t/');
    expect(commonTopFolder(['t/a', 'u/b'])).toBe('');
    expect(commonTopFolder(['t/a', 'b'])).toBe('');
  });
});

describe('the stm layout: recorded calls (DESIGN §16.5)', () => {
  const STM = [
    ';; a comment line',
    'call-1 1 agent 0.500 2.250 <o,f0,female> Thank you for calling.',
    'call-1 1 customer 2.100 4.000 <o,f0,male> Hi, I need help',
    'call-1 1 excluded_region 4.000 5.000 ignore_time_segment_in_scoring',
    'call-1 1 agent 0.000 0.400 hello',
    '',
  ].join('\n');

  it('reads each .stm as one call: its segments in order of start, labels and unscored regions left out, its audio beside it', async () => {
    const parsed = await parse({ 'rec/a/call-1.stm': STM, 'rec/a/call-1.flac': '', 'rec/b/call-2.stm': 'call-2 1 A 0 1 yes\n', 'rec/b/call-2.wav': '' });
    expect(parsed.layout).toBe('stm');
    expect(parsed.utterances.map((u) => [u.utterance_id, u.audio_path, u.speaker, u.reference])).toEqual([
      ['call-1', 'rec/a/call-1.flac', null, 'hello Thank you for calling. Hi, I need help'],
      ['call-2', 'rec/b/call-2.wav', null, 'yes'],
    ]);
    expect(parsed.utterances[0]!.segments).toEqual([
      { speaker: 'agent', start: 0, end: 0.4, text: 'hello' },
      { speaker: 'agent', start: 0.5, end: 2.25, text: 'Thank you for calling.' },
      { speaker: 'customer', start: 2.1, end: 4, text: 'Hi, I need help' },
    ]);
  });

  it('refuses a line that is not a segment, a call without audio or without words, naming the file and line', async () => {
    expect(await failure({ 'c.stm': 'c 1 A 2.0\n', 'c.wav': '' })).toBe(CORPUS_MESSAGES.stmSegment('c.stm', 1));
    expect(await failure({ 'c.stm': ';; x\nc 1 A 3 2 words\n', 'c.wav': '' })).toBe(CORPUS_MESSAGES.stmSegment('c.stm', 2));
    expect(await failure({ 'c.stm': 'c 1 A 0 1 words\n', 'c.mp4': '' })).toBe(CORPUS_MESSAGES.audioNotFound('c.stm', 1, 'c.wav'));
    expect(await failure({ 'c.stm': ';; only a comment\n', 'c.wav': '' })).toBe(CORPUS_MESSAGES.missingTranscript('c.stm', 1));
    expect(await failure({ 'x/c.stm': 'c 1 A 0 1 a\n', 'x/c.wav': '', 'y/c.stm': 'c 1 A 0 1 b\n', 'y/c.wav': '' })).toBe(CORPUS_MESSAGES.duplicateId('c'));
  });
});
