/**
 * A corpus upload writes its audio blobs without waiting for each to reach the disk, and makes them all
 * durable in one batch before the corpus commits (issue 33's benchmark): nothing committed may name a
 * blob that a crash could still lose.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../../../src/server/storage/db.js';
import { createFilesystemBlobStore } from '../../../../src/server/storage/blobs/filesystem.js';
import type { AudioBlobStore } from '../../../../src/server/storage/blobs/index.js';
import { createUserWithKey } from '../../../../src/server/features/accounts/users.js';
import { createCorpusFromArchive, DEFAULT_CORPUS_LIMITS, openUploadDir } from '../../../../src/server/features/corpora/upload.js';
import { receiveArchive } from '../../../../src/server/features/corpora/receive.js';
import { rawTar, recordings } from '../../../helpers/corpora.js';
import { createDecodePool } from '../../../../src/server/audio/decode-pool.js';

describe('corpus uploads: blobs made durable together, before the corpus commits', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-corpus-durability-'));
  const pool = createDecodePool({ size: 1 });
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every blob an audio row names was synced, in one batch, while no corpus row existed', async () => {
    const db = await openSqliteDatabase(join(dir, 'voxctl.db'));
    const now = new Date('2026-11-28T12:00:00Z');
    const { user } = await createUserWithKey(db, { email: 'durable@example.com', now });
    const store = createFilesystemBlobStore(join(dir, 'audio'));
    const durable = new Set<string>();
    const batches: { names: string[]; corpora: number }[] = [];
    // The store as the upload sees it, noting when each blob becomes durable.
    const blobs: AudioBlobStore = {
      ...store,
      async put(name, bytes, options) {
        await store.put(name, bytes, options);
        if (options?.durable !== false) durable.add(name);
      },
      async putFile(name, path, options) {
        await store.putFile!(name, path, options);
        if (options?.durable !== false) durable.add(name);
      },
      async sync(names) {
        batches.push({ names: [...names], corpora: Number(await db.value('SELECT COUNT(*) FROM corpora')) });
        await store.sync!(names);
        for (const n of names) durable.add(n);
      },
    };
    const recs = recordings().slice(0, 3);
    const manifest = 'file_name,transcription\n' + recs.map((r, i) => `u${i}.wav,${r.text}`).join('\n') + '\n';
    const archive = rawTar([{ path: 'metadata.csv', data: manifest }, ...recs.map((r, i) => ({ path: `u${i}.wav`, data: readFileSync(r.wav) }))]);
    const settings = { tmpRoot: join(dir, 'tmp'), limits: DEFAULT_CORPUS_LIMITS };
    const upload = await openUploadDir(settings, pool);
    try {
      const received = await receiveArchive(Readable.from([archive]), upload, settings.limits);
      const corpus = await createCorpusFromArchive(
        { db, blobs, clock: { now: () => now }, instanceId: 'inst_test', settings },
        { userId: user.id, name: 'durable', dir: upload, received },
      );
      expect(corpus.utterances).toBe(3);
    } finally {
      await upload.remove();
    }
    const paths = await db.column<string>("SELECT path FROM audio WHERE kind = 'upload' ORDER BY path");
    expect(paths).toHaveLength(3);
    expect(batches).toEqual([{ names: expect.arrayContaining(paths), corpora: 0 }]);
    for (const p of paths) expect(durable.has(p)).toBe(true);
    await db.close();
  });

  it('the filesystem store refuses to sync a blob it does not hold (an upload whose blob vanished does not commit)', async () => {
    const store = createFilesystemBlobStore(join(dir, 'audio-missing'));
    await store.put('aud_kept.wav', Buffer.from('RIFF'), { durable: false });
    await expect(store.sync!(['aud_kept.wav', 'aud_gone.wav'])).rejects.toMatchObject({ code: 'ENOENT' });
    await store.sync!(['aud_kept.wav']);
    expect(await store.size('aud_kept.wav')).toBe(4);
  });
});
