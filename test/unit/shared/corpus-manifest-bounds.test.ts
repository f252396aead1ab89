/** DESIGN §17.2: manifests are read by their first line to detect a layout, and bounded in size, line length and encoding. */
import { describe, expect, it } from 'vitest';
import { MANIFEST_LIMITS, parseCorpus, type ManifestFiles } from '../../../src/shared/corpus/index.js';
import { DomainError } from '../../../src/shared/errors.js';

/** Files in memory, with every read recorded (path and how many bytes were asked for). */
function memoryFiles(files: Record<string, Buffer | string>, sizes: Record<string, number> = {}) {
  const reads: { path: string; maxBytes: number | undefined }[] = [];
  const bytes = (p: string) => Buffer.from(files[p] ?? '');
  const source: ManifestFiles = {
    size: async (p) => sizes[p] ?? bytes(p).length,
    read: async (p, maxBytes) => {
      reads.push({ path: p, maxBytes });
      return maxBytes === undefined ? bytes(p) : bytes(p).subarray(0, maxBytes);
    },
  };
  return { source, reads };
}

async function refusal(files: Record<string, Buffer | string>, sizes?: Record<string, number>): Promise<string> {
  const err = await parseCorpus(Object.keys(files), memoryFiles(files, sizes).source).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe('validation_failed');
  return (err as DomainError).message;
}

describe('manifest bounds (DESIGN §17.2)', () => {
  it('detects a layout from the first line of each candidate manifest only', async () => {
    const { source, reads } = memoryFiles({
      'corpus/metadata.csv': 'file_name,text\na.wav,hello\n',
      'corpus/a.wav': '',
      'corpus/other.tsv': `id\tvalue\n${'x\ty\n'.repeat(1000)}`,
    });
    const parsed = await parseCorpus(['corpus/metadata.csv', 'corpus/a.wav', 'corpus/other.tsv'], source);
    expect(parsed.layout).toBe('audiofolder');
    // The .tsv (not a manifest) is read once, by its head; the manifest by its head, then whole.
    expect(reads.filter((r) => r.path === 'corpus/other.tsv')).toEqual([{ path: 'corpus/other.tsv', maxBytes: MANIFEST_LIMITS.lineBytes + 2 }]);
    expect(reads.filter((r) => r.path === 'corpus/metadata.csv').map((r) => r.maxBytes)).toEqual([MANIFEST_LIMITS.lineBytes + 2, undefined]);
  });

  it('refuses a manifest over 64 MB before reading it: Manifest too large', async () => {
    const files = { 'corpus/test.tsv': 'client_id\tpath\tsentence\n', 'corpus/a.mp3': '' };
    expect(await refusal(files, { 'corpus/test.tsv': 64 * 1024 * 1024 + 1 })).toBe('Manifest too large: test.tsv');
    const kaldi = { 'wav.scp': 'u a.wav\n', text: 'u hi\n', 'a.wav': '' };
    expect(await refusal(kaldi, { text: 64 * 1024 * 1024 + 1 })).toBe('Manifest too large: text');
  });

  it('refuses a line over 1 MB with its manifest and line: line too long', async () => {
    const long = 'a'.repeat(1024 * 1024 + 1);
    expect(await refusal({ 'metadata.csv': `file_name,text\na.wav,hi\nb.wav,${long}\n`, 'a.wav': '', 'b.wav': '' })).toBe('metadata.csv:3: line too long');
    expect(await refusal({ 'x/1-2.trans.txt': `1-2-1 HI\n\n1-2-2 ${long}\n`, 'x/1-2-1.flac': '', 'x/1-2-2.flac': '' })).toBe('1-2.trans.txt:3: line too long');
    // A first line past the limit is refused while the layout is detected.
    expect(await refusal({ 'metadata.jsonl': `{"file_name":"${long}"}\n`, 'a.wav': '' })).toBe('metadata.jsonl:1: line too long');
  });

  it('refuses bytes that are not UTF-8 with their manifest and line: not valid UTF-8', async () => {
    const bad = (text: string, at: string) => Buffer.concat([Buffer.from(text), Buffer.from([0xc3, 0x28]), Buffer.from(at)]);
    expect(await refusal({ 'c/test.tsv': bad('client_id\tpath\tsentence\r\nc1\ta.mp3\thi\r\nc2\tb.mp3\tbad ', '\r\n'), 'c/clips/a.mp3': '', 'c/clips/b.mp3': '' })).toBe(
      'test.tsv:3: not valid UTF-8',
    );
    expect(await refusal({ 'metadata.csv': bad('file_name,text\n\n\na.wav,', '\n'), 'a.wav': '' })).toBe('metadata.csv:4: not valid UTF-8');
    expect(await refusal({ 'wav.scp': 'u a.wav\n', text: bad('u ', '\n'), 'a.wav': '' })).toBe('text:1: not valid UTF-8');
  });

  it('reads a manifest of millions of blank lines without holding them: only its real lines count', async () => {
    const files = { 'test.tsv': Buffer.concat([Buffer.from('client_id\tpath\tsentence\n'), Buffer.alloc(5_000_000, 0x0a), Buffer.from('c\ta.mp3\thi\n')]), 'a.mp3': '' };
    const parsed = await parseCorpus(Object.keys(files), memoryFiles(files).source);
    expect(parsed.utterances.map((u) => [u.utterance_id, u.line])).toEqual([['a', 5_000_002]]);
  });
});
