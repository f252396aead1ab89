/**
 * A SQLite backup beside the audio retention (issue 31): expired audio is not looked for, and a file the
 * retention deleted after the database was copied is left out with its row marked in the copy — any other
 * missing file is still an error.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../../../src/server/storage/db.js';
import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';
import { backupDataDir, BackupError, stageAudio } from '../../../../src/server/storage/backup.js';
import { insertAudio } from '../../../../src/server/features/audio/repository.js';

const NOW = '2026-11-29T12:00:00.000Z';

describe('backups and the audio retention', () => {
  const root = mkdtempSync(join(tmpdir(), 'voxctl-backup-retention-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A data dir with audio rows `ids` and their files; `expired` ones marked and their files gone. */
  async function dataDir(name: string, ids: string[], expired: string[] = []) {
    const dir = join(root, name);
    mkdirSync(join(dir, 'audio'), { recursive: true });
    const db = await openSqliteDatabase(join(dir, 'voxctl.db'));
    for (const id of ids) {
      await insertAudio(db, { id, user_id: null, kind: 'tts', path: `${id}.wav`, format: 'wav', bytes: 4, duration_seconds: 1, sample_rate: 16000, created_at: NOW });
      if (!expired.includes(id)) writeFileSync(join(dir, 'audio', `${id}.wav`), 'RIFF');
    }
    if (expired.length > 0) await db.run(`UPDATE audio SET expired_at = ? WHERE id IN (${expired.map(() => '?').join(', ')})`, [NOW, ...expired]);
    await db.close();
    return dir;
  }

  it('backs up the files of unexpired rows only', async () => {
    const dir = await dataDir('expired', ['aud_kept', 'aud_gone'], ['aud_gone']);
    const summary = await backupDataDir({ dataDir: dir, file: join(root, 'expired.tar') });
    expect(summary.audioFiles).toBe(1);
  });

  it('a file deleted after the copy was taken: left out when the live row is expired (and marked in the copy), else an error', async () => {
    const dir = await dataDir('race', ['aud_a', 'aud_b']);
    const staging = join(root, 'race-staging');
    mkdirSync(join(staging, 'audio'), { recursive: true });
    copyFileSync(join(dir, 'voxctl.db'), join(staging, 'voxctl.db'));
    // The retention ran after the copy: it marked aud_a, then deleted its file.
    const live = await openSqliteDatabase(join(dir, 'voxctl.db'));
    await live.run('UPDATE audio SET expired_at = ? WHERE id = ?', [NOW, 'aud_a']);
    await live.close();
    rmSync(join(dir, 'audio', 'aud_a.wav'));
    const Driver = loadSqliteDriver();
    expect(stageAudio(dir, staging, Driver)).toEqual(['aud_b.wav']);
    const copy = new Driver(join(staging, 'voxctl.db'), { readonly: true });
    expect(copy.prepare('SELECT expired_at FROM audio WHERE id = ?').pluck().get('aud_a')).toBe(NOW);
    copy.close();
    expect(existsSync(join(staging, 'audio', 'aud_b.wav'))).toBe(true);

    // A file that is simply missing (its row not expired) fails the backup, naming it.
    rmSync(join(dir, 'audio', 'aud_b.wav'));
    const error = await backupDataDir({ dataDir: dir, file: join(root, 'race.tar') }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BackupError);
    expect((error as Error).message).toBe(`An audio file the database references is missing: ${join(dir, 'audio', 'aud_b.wav')}`);
  });
});
