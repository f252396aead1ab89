import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSqliteDriver } from '../../../../../src/server/storage/sqlite-driver.js';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateRaw } from '../../../../helpers/migrated-sqlite.js';
import { createSqliteDb } from '../../../../../src/server/storage/sql/sqlite.js';
import { audioPathFor, recoverAudioStore, storeAudio, wavInput } from '../../../../../src/server/features/audio/audio-store.js';
import { getAudio } from '../../../../../src/server/features/audio/repository.js';
import { parseWav } from '../../../../../src/server/audio/wav.js';
import { dataDirBlobs } from '../../../../helpers/work.js';

const Database = loadSqliteDriver();

describe('audio store', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'voxctl-store-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('derives paths from ids only and refuses anything that could leave the folder', () => {
    expect(audioPathFor('aud_abcdefgh', 'wav')).toBe('aud_abcdefgh.wav');
    for (const bad of ['../etc/passwd', 'aud_../../x', 'aud_a/b/cdefg', 'aud_short', 'aud_abc.def.gh', '']) {
      expect(() => audioPathFor(bad, 'wav'), bad).toThrow(/Invalid audio id/);
    }
  });

  it('writes the file atomically (no temp left) before recording the row, with exact duration', async () => {
    const dataDir = tempDir();
    const raw = new Database(':memory:');
    migrateRaw(raw);
    const db = createSqliteDb(raw);
    const pcm = new Int16Array(22_051).map((_, i) => Math.round(8000 * Math.sin(i / 5)));
    const row = await storeAudio(db, dataDirBlobs(dataDir), wavInput(pcm, 22050, { userId: 'u', kind: 'tts', now: new Date() }));
    expect(row.duration_seconds).toBe(1);
    expect(row.path).toBe(`${row.id}.wav`);
    expect(await getAudio(db, row.id)).toEqual({ ...row, expired_at: null });
    expect(readdirSync(join(dataDir, 'audio'))).toEqual([row.path]);
    const bytes = readFileSync(join(dataDir, 'audio', row.path));
    expect(bytes.length).toBe(row.bytes);
    expect(parseWav(bytes)).toMatchObject({ sampleRate: 22050, frames: 22_051, channels: 1 });
  });

  it('recovery removes temp debris and files no row records, and keeps recorded ones', async () => {
    const dataDir = tempDir();
    const raw = new Database(':memory:');
    migrateRaw(raw);
    const db = createSqliteDb(raw);
    const kept = await storeAudio(db, dataDirBlobs(dataDir), wavInput(new Int16Array(100).fill(1000), 16000, { userId: 'u', kind: 'tts', now: new Date() }));
    mkdirSync(join(dataDir, 'audio'), { recursive: true });
    writeFileSync(join(dataDir, 'audio', '.tmp-1234-aud_zzzzzzzz.wav'), 'x');
    writeFileSync(join(dataDir, 'audio', 'aud_orphan0000.wav'), 'x');
    expect(await recoverAudioStore(db, dataDirBlobs(dataDir), { orphansBefore: new Date(Date.now() + 60_000), pending: async () => [] })).toEqual({ temp: 1, orphans: 1 });
    expect(readdirSync(join(dataDir, 'audio'))).toEqual([kept.path]);
  });

  it('leaves the blobs another feature owns before a row records them (the prefixes it is given)', async () => {
    const dataDir = tempDir();
    const raw = new Database(':memory:');
    migrateRaw(raw);
    const db = createSqliteDb(raw);
    mkdirSync(join(dataDir, 'audio'), { recursive: true });
    writeFileSync(join(dataDir, 'audio', 'aud_upload1_0001.wav'), 'x');
    writeFileSync(join(dataDir, 'audio', 'aud_orphan0000.wav'), 'x');
    const pending = async () => ['aud_upload1_'];
    expect(await recoverAudioStore(db, dataDirBlobs(dataDir), { orphansBefore: new Date(Date.now() + 60_000), pending })).toEqual({ temp: 0, orphans: 1 });
    expect(readdirSync(join(dataDir, 'audio'))).toEqual(['aud_upload1_0001.wav']);
  });
});
