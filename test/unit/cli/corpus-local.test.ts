import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDirectory, tarOf, uploadSource } from '../../../src/cli/core/corpus-local.js';
import { Output } from '../../../src/cli/core/output.js';
import { UploadProgress } from '../../../src/cli/core/upload-progress.js';
import { buildCorpus, packCorpus } from '../../helpers/corpus-fixtures.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'voxctl-corpus-local-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const collect = async (it: AsyncIterable<Uint8Array>) => {
  const chunks: Buffer[] = [];
  for await (const c of it) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
};

describe('corpus upload, local side (DESIGN §10.6)', () => {
  it('lists a directory following links and streams exactly the tar it announced', async () => {
    const dir = buildCorpus(join(root, 'af'), 'audiofolder');
    // A link to a file is sent as the file; a loop of directory links ends.
    symlinkSync(join(dir, 'audio', 'ls0870.flac'), join(dir, 'audio', 'linked.flac'));
    symlinkSync(dir, join(dir, 'audio', 'loop'));
    const listing = await listDirectory(dir);
    expect(listing.files).toContain('metadata.csv');
    expect(listing.files).toContain('audio/linked.flac');
    expect(listing.files.filter((f) => f.includes('loop'))).toEqual([]);
    const tar = await collect(await tarOf(dir, listing.files));
    expect(tar.length).toBe(listing.tarBytes);
    const { Parser } = await import('tar');
    const seen: { path: string; type: string }[] = [];
    await new Promise<void>((resolve, reject) => {
      const p = new Parser({ onReadEntry: (e) => (seen.push({ path: e.path, type: e.type }), e.resume()) });
      p.on('end', resolve).on('error', reject);
      p.end(tar);
    });
    expect(seen.map((e) => e.path).sort()).toEqual([...listing.files].sort());
    expect(new Set(seen.map((e) => e.type))).toEqual(new Set(['File']));
  });

  it('takes a directory or a .zip/.tar/.tar.gz/.tgz archive; anything else is a usage error', async () => {
    const dir = buildCorpus(join(root, 'k'), 'kaldi');
    expect((await uploadSource(dir)).kind).toBe('directory');
    const tgz = await packCorpus(dir, join(root, 'k.tgz'));
    expect(await uploadSource(tgz)).toMatchObject({ kind: 'archive', contentType: 'application/gzip', filename: 'k.tgz' });
    const zip = await packCorpus(dir, join(root, 'k.zip'));
    expect(await uploadSource(zip)).toMatchObject({ kind: 'archive', contentType: 'application/zip' });
    writeFileSync(join(root, 'notes.txt'), 'x');
    await expect(uploadSource(join(root, 'notes.txt'))).rejects.toMatchObject({ exitCode: 2 });
    await expect(uploadSource(join(root, 'missing'))).rejects.toMatchObject({ exitCode: 2, message: `No such file or directory: ${join(root, 'missing')}` });
    mkdirSync(join(root, 'empty'));
    expect((await listDirectory(join(root, 'empty'))).files).toEqual([]);
  });
});

describe('upload progress by bytes (DESIGN §7)', () => {
  const sink = (isTTY: boolean) => {
    const chunks: string[] = [];
    const stream = Object.assign(new PassThrough(), { isTTY });
    stream.on('data', (c: Buffer) => chunks.push(c.toString()));
    return { stream, text: () => chunks.join('') };
  };
  const output = (o: { tty: boolean; json?: boolean; quiet?: boolean }) => {
    const err = sink(o.tty);
    const out = new Output({ stdout: sink(false).stream, stderr: err.stream, json: Boolean(o.json), quiet: Boolean(o.quiet), verbose: false, noColor: true });
    return { out, err };
  };

  it('draws a bar with bytes on a terminal, JSON events under --json, nothing when piped or quiet', async () => {
    let t = 0;
    const tty = output({ tty: true });
    const p = new UploadProgress(tty.out, 'Uploading x', 2_000_000, () => t);
    p.update(500_000);
    t = 1000;
    p.update(2_000_000, true);
    await new Promise((r) => setImmediate(r));
    expect(tty.err.text()).toContain('Uploading x');
    expect(tty.err.text()).toContain(' 25%  500.0 KB / 2.0 MB');
    expect(tty.err.text()).toContain('100%  2.0 MB / 2.0 MB  2.0 MB/s');

    const json = output({ tty: false, json: true });
    const j = new UploadProgress(json.out, 'Uploading x', 1000, () => 0);
    j.update(10);
    j.update(400); // within the second: not repeated
    j.update(1000, true);
    await new Promise((r) => setImmediate(r));
    const lines = json.err.text().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { event: 'progress', phase: 'upload', bytes_sent: 10, bytes_total: 1000, percent: 1 },
      { event: 'progress', phase: 'upload', bytes_sent: 1000, bytes_total: 1000, percent: 100 },
    ]);

    for (const o of [{ tty: false }, { tty: true, quiet: true }]) {
      const silent = output(o);
      new UploadProgress(silent.out, 'x', 10).update(10, true);
      await new Promise((r) => setImmediate(r));
      expect(silent.err.text()).toBe('');
    }
  });
});
