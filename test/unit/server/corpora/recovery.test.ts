import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../../../src/server/storage/db.js';
import { createFilesystemBlobStore } from '../../../../src/server/storage/blobs/filesystem.js';
import { insertCorpusUpload } from '../../../../src/server/features/corpora/repository.js';
import { insertInstance } from '../../../../src/server/features/ops/instances-repository.js';
import { recoverCorpusUploads } from '../../../../src/server/features/corpora/recovery.js';
import { uploadBlobName } from '../../../../src/server/features/corpora/upload.js';

describe('recoverCorpusUploads: what a killed upload left, and only that', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-corpus-recovery-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('on a shared database removes the uploads of dead writers and keeps those of live ones', async () => {
    const db = await openSqliteDatabase(join(dir, 'voxctl.db'));
    const blobs = createFilesystemBlobStore(join(dir, 'audio'));
    const tmpRoot = join(dir, 'tmp', 'corpora');
    const now = new Date();
    const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
    await insertInstance(db, { id: 'inst_live', host: 'elsewhere', pid: 1, started_at: ago(600), heartbeat_at: ago(5) });
    await insertInstance(db, { id: 'inst_silent', host: 'elsewhere', pid: 2, started_at: ago(600), heartbeat_at: ago(300) });
    // A process of this host that has exited (the pid of a child that is gone), its instance row still fresh.
    const { spawnSync } = await import('node:child_process');
    const gonePid = spawnSync('true').pid!;
    await insertInstance(db, { id: 'inst_exited', host: hostname(), pid: gonePid, started_at: ago(600), heartbeat_at: ago(5) });
    const uploads = { live: 'inst_live', silent: 'inst_silent', exited: 'inst_exited', vanished: 'inst_vanished', self: 'inst_self' };
    for (const [name, owner] of Object.entries(uploads)) {
      await insertCorpusUpload(db, { id: `cor_${name}`, owner, host: 'elsewhere', pid: 3, audio_prefix: `aud_c${name}_`, planned: 2, created_at: ago(60) });
      for (const i of [0, 1]) await blobs.put(uploadBlobName(`aud_c${name}_`, i), Buffer.from('RIFF'));
    }
    await db.run("UPDATE corpus_uploads SET host = ?, pid = ? WHERE id = 'cor_exited'", [hostname(), gonePid]);
    mkdirSync(join(tmpRoot, `${gonePid}-dead`), { recursive: true });
    mkdirSync(join(tmpRoot, `${process.pid}-mine`), { recursive: true });

    const result = await recoverCorpusUploads({ db, blobs, tmpRoot, shared: true, self: 'inst_self', deadBefore: new Date(now.getTime() - 60_000) });
    expect(result).toEqual({ folders: 1, uploads: 3 });
    expect((await db.column<string>('SELECT id FROM corpus_uploads ORDER BY id')).sort()).toEqual(['cor_live', 'cor_self']);
    expect(readdirSync(join(dir, 'audio')).sort()).toEqual(['aud_clive_0.wav', 'aud_clive_1.wav', 'aud_cself_0.wav', 'aud_cself_1.wav']);
    expect(readdirSync(tmpRoot)).toEqual([`${process.pid}-mine`]);

    // One process per data dir (SQLite): everything goes, this process's own folder too.
    expect(await recoverCorpusUploads({ db, blobs, tmpRoot, shared: false, self: 'inst_self', deadBefore: now })).toEqual({ folders: 1, uploads: 2 });
    expect(readdirSync(join(dir, 'audio'))).toEqual([]);
    expect(existsSync(tmpRoot) ? readdirSync(tmpRoot) : []).toEqual([]);
    await db.close();
  });
});
