/**
 * Fuzzing the archive reader and the manifest parsers (DESIGN §17.3, issue 33): valid archives and
 * manifests, truncated at random and with random bits flipped, always end in a result or a DomainError
 * the service answers with a 4xx — never another error, never a hang. Bounded run counts: seconds.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { extractArchive } from '../../../../src/server/features/corpora/archive.js';
import { folderFiles, parseCorpus } from '../../../../src/shared/corpus/index.js';
import { DomainError } from '../../../../src/shared/errors.js';
import { statusOf } from '../../../../src/server/plugins/errors.js';
import { tarOf, zipOf } from '../../../helpers/corpora.js';

/** A valid audiofolder corpus: a manifest and two tiny files. */
const FILES: Record<string, string> = {
  'corpus/metadata.csv': 'file_name,text,speaker_id\na.wav,hello there,s1\nsub/b.wav,"good, morning",s2\n',
  'corpus/a.wav': 'RIFF....WAVEfmt '.repeat(20),
  'corpus/sub/b.wav': 'x'.repeat(700),
};

const MTIME = new Date('2026-01-02T03:04:05Z');

/** Flips `flips` bits of `base` and cuts it to `cut` of its length. */
const mutate = (base: Buffer, cut: number, flips: [number, number][]): Buffer => {
  const out = Buffer.from(base.subarray(0, Math.max(0, Math.round(base.length * cut))));
  for (const [at, bit] of flips) if (out.length > 0) out[at % out.length]! ^= 1 << bit;
  return out;
};

const mutation = fc.record({
  cut: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
  flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), { maxLength: 8 }),
});

/** Settles `work` within `ms`, or fails as a hang. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`hung for ${ms} ms`)), ms)));
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** The outcome must be a result or a 4xx DomainError; anything else fails the property with its message. */
async function settlesAs4xx(work: () => Promise<unknown>): Promise<void> {
  try {
    await within(10_000, work());
  } catch (err) {
    if (!(err instanceof DomainError)) throw new Error(`not a domain error: ${String(err)}`, { cause: err });
    const status = statusOf(err.code);
    expect(status, `${err.code}: ${err.message}`).toBeGreaterThanOrEqual(400);
    expect(status, `${err.code}: ${err.message}`).toBeLessThan(500);
  }
}

describe('archive reader and manifest parsers under random damage (DESIGN §17.3)', () => {
  const work = mkdtempSync(join(tmpdir(), 'voxctl-fuzz-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  let n = 0;

  const archives = async (): Promise<Record<string, Buffer>> => {
    const src = join(work, 'src');
    // Fixed times make the archives, and so every counterexample, the same bytes on every run.
    for (const [p, text] of Object.entries(FILES)) {
      mkdirSync(join(src, p, '..'), { recursive: true });
      writeFileSync(join(src, p), text);
    }
    for (const p of ['', ...readdirSync(src, { recursive: true, encoding: 'utf8' })]) utimesSync(join(src, p), MTIME, MTIME);
    return {
      zip: await zipOf(Object.entries(FILES).map(([name, data]) => ({ name, data, mtime: MTIME }))),
      tar: await tarOf(src),
      tgz: await tarOf(src, { gzip: true }),
    };
  };

  it('extracts and parses truncated and bit-flipped zip, tar and tgz archives to a result or a 4xx', async () => {
    const bases = await archives();
    for (const [kind, base] of Object.entries(bases)) {
      await fc.assert(
        fc.asyncProperty(mutation, async ({ cut, flips }) => {
          const dir = join(work, `run-${n++}`);
          mkdirSync(join(dir, 'files'), { recursive: true });
          const archive = join(dir, 'archive');
          writeFileSync(archive, mutate(base, cut, flips));
          try {
            await settlesAs4xx(async () => {
              const { files } = await extractArchive(archive, join(dir, 'files'));
              return parseCorpus(files, folderFiles(join(dir, 'files')));
            });
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }),
        { numRuns: 120, seed: kind.length * 7919 },
      );
    }
  }, 120_000);

  // A .tgz cut inside the padding of an entry whose data was complete once hung the extraction (the body
  // waited for bytes that never came), and a failure while an entry's folder was being made let that
  // folder appear after the error was returned. Every cut of every archive is tried: each must settle,
  // and once it has, nothing may still be writing into the folder (a bare rm must succeed).
  it('settles every truncation of each archive, and writes nothing into the folder after it has', async () => {
    const bases = await archives();
    for (const [kind, base] of Object.entries(bases)) {
      // A tar's headers and data are 512-byte blocks: 16-byte cuts land in every field and padding.
      const step = kind === 'tar' ? 16 : 1;
      for (let length = 0; length < base.length; length += step) {
        const dir = join(work, `cut-${kind}-${length}`);
        mkdirSync(join(dir, 'files'), { recursive: true });
        writeFileSync(join(dir, 'archive'), base.subarray(0, length));
        await settlesAs4xx(() => extractArchive(join(dir, 'archive'), join(dir, 'files')));
        // What the caller does next: a write still in flight fails this rm (ENOTEMPTY) or shows up after it.
        rmSync(join(dir, 'files'), { recursive: true });
        await new Promise((resolve) => setTimeout(resolve, 2));
        expect(readdirSync(dir), `${kind} cut at ${length}`).toEqual(['archive']);
        rmSync(dir, { recursive: true });
      }
    }
  }, 120_000);

  it('parses truncated and bit-flipped manifests of every layout to a result or a 4xx', async () => {
    const manifests: Record<string, Buffer>[] = [
      { 'metadata.csv': Buffer.from('file_name,text,speaker_id\na.wav,hello,s1\nb.wav,"x, ""y""\nz",s2\n'), 'a.wav': Buffer.alloc(0), 'b.wav': Buffer.alloc(0) },
      { 'metadata.jsonl': Buffer.from('{"file_name":"a.wav","text":"héllo"}\n{"file_name":"b.wav","text":"b"}\n'), 'a.wav': Buffer.alloc(0), 'b.wav': Buffer.alloc(0) },
      { 'test.tsv': Buffer.from('client_id\tpath\tsentence\nc1\ta.mp3\thello\nc2\tb.mp3\tthere\n'), 'clips/a.mp3': Buffer.alloc(0), 'clips/b.mp3': Buffer.alloc(0) },
      { '1-2.trans.txt': Buffer.from('1-2-0001 HELLO\n1-2-0002 THERE\n'), '1-2-0001.flac': Buffer.alloc(0), '1-2-0002.flac': Buffer.alloc(0) },
      { 'wav.scp': Buffer.from('u1 a.wav\nu2 b.wav\n'), text: Buffer.from('u1 hello\nu2 thére\n'), utt2spk: Buffer.from('u1 s\nu2 s\n'), 'a.wav': Buffer.alloc(0), 'b.wav': Buffer.alloc(0) },
    ];
    for (const files of manifests) {
      const names = Object.keys(files);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...names.filter((f) => files[f]!.length > 0)), mutation, async (target, { cut, flips }) => {
          const damaged = { ...files, [target]: mutate(files[target]!, cut, flips) };
          await settlesAs4xx(() => parseCorpus(names, async (p) => damaged[p]!));
        }),
        { numRuns: 150, seed: names.length * 104729 },
      );
    }
  }, 60_000);
});
