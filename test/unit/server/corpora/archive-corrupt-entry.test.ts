/**
 * DESIGN §17.3: an entry whose data differs from its declared size is 400 `Corrupt archive entry: {path}`,
 * in a tar as in a zip — also when the stream breaks after the entry (the next header is really that
 * entry's surplus data; a .tgz cut inside its data), which is that entry's corruption, not a file that is
 * no archive at all.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { extractArchive } from '../../../../src/server/features/corpora/archive.js';
import { rawTar } from '../../../helpers/corpora.js';

describe('an archive entry that is not what its header says', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-corrupt-entry-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  async function extract(bytes: Buffer, name: string) {
    const archive = join(dir, `${n}-${name}`);
    const dest = join(dir, `out-${n++}`);
    writeFileSync(archive, bytes);
    await mkdir(dest);
    return extractArchive(archive, dest);
  }
  const manifest = { path: 'metadata.csv', data: 'file_name,text\nclips/a.wav,hi\n' };
  const data = Buffer.alloc(3000, 7);

  it('holding more data than it declares: the surplus is read as the next header, which fails its checksum', async () => {
    const honest = rawTar([{ path: 'clips/a.wav', data }, manifest]);
    // The header declares 1,000 bytes (octal 1750) of a 3,000-byte body (6 blocks): the block after the
    // first two is body, not a header.
    const lying = Buffer.from(honest);
    lying.write('00000001750\0', 124, 'latin1');
    let sum = 0;
    lying.fill(' ', 148, 156);
    for (let i = 0; i < 512; i++) sum += lying[i]!;
    lying.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    await expect(extract(lying, 'more.tar')).rejects.toMatchObject({ message: 'Corrupt archive entry: clips/a.wav' });
  });

  it('a .tgz cut inside an entry’s data (a partial download): the same words as the plain tar cut there', async () => {
    // Random bytes: gzip cannot shrink them, so half the .tgz is half the entry.
    const tar = rawTar([manifest, { path: 'clips/a.wav', data: randomBytes(200_000) }]);
    const cut = gzipSync(tar).subarray(0, 100_000);
    await expect(extract(cut, 'cut.tgz')).rejects.toMatchObject({ message: 'Corrupt archive entry: clips/a.wav' });
    await expect(extract(tar.subarray(0, 1024 + 100_000), 'cut.tar')).rejects.toMatchObject({ message: 'Corrupt archive entry: clips/a.wav' });
    // Nothing of a tar at all is still no archive.
    await expect(extract(gzipSync(Buffer.alloc(4096, 0x41)), 'junk.tgz')).rejects.toMatchObject({ message: 'Archive is not a zip or tar file' });
  });

  // Entries up to 1 MB are read whole and written at once, larger ones streamed: both keep the same rules.
  for (const [size, how] of [
    [200_000, 'read whole'],
    [1_500_000, 'streamed'],
  ] as const) {
    it(`a tar entry ${how} (${size} bytes): its exact bytes, the expansion limit, and a cut inside it`, async () => {
      const body = randomBytes(size);
      const tar = rawTar([manifest, { path: 'clips/a.wav', data: body }]);
      const out = join(dir, `out-${n}`);
      expect((await extract(tar, 'whole.tar')).files).toEqual(['metadata.csv', 'clips/a.wav']);
      expect(readFileSync(join(out, 'clips/a.wav')).equals(body)).toBe(true);
      const archive = join(dir, `${n}-limited.tar`);
      writeFileSync(archive, tar);
      await mkdir(join(dir, `out-${n}`));
      await expect(extractArchive(archive, join(dir, `out-${n++}`), { maxEntries: 10, maxExpandedBytes: size - 1 })).rejects.toMatchObject({
        message: 'Archive expands beyond 10 GiB',
      });
      await expect(extract(tar.subarray(0, 1024 + size - 10_000), 'cut.tar')).rejects.toMatchObject({ message: 'Corrupt archive entry: clips/a.wav' });
      await expect(extract(gzipSync(tar).subarray(0, 1024 + size - 10_000), 'cut.tgz')).rejects.toMatchObject({ message: 'Corrupt archive entry: clips/a.wav' });
    });
  }

  it('a zip entry of the declared size whose bytes fail its CRC-32 (a stored entry with one byte flipped)', async () => {
    const yazl = (await import('yazl')).default;
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(manifest.data), 'metadata.csv', { compress: false });
    const wav = Buffer.alloc(4000, 9);
    zip.addBuffer(wav, 'clips/a.wav', { compress: false });
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
    const good = Buffer.concat(chunks);
    expect((await extract(good, 'good.zip')).files).toEqual(['metadata.csv', 'clips/a.wav']);
    const flipped = Buffer.from(good);
    const at = good.indexOf(wav) + 2000;
    flipped.writeUInt8(flipped.readUInt8(at) ^ 0x01, at);
    await expect(extract(flipped, 'flipped.zip')).rejects.toMatchObject({ message: 'Corrupt archive entry: clips/a.wav' });
  });
});
