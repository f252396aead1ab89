/**
 * Audio retention (`--audio-retention-days`, issue 31 item 6 "audio is never deleted"): what is old and
 * generated or uploaded alone goes, file first and row marked after; a corpus's recordings, speaker
 * samples and recent audio stay; a second sweep finds nothing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../../../src/server/storage/db.js';
import { createFilesystemBlobStore } from '../../../../src/server/storage/blobs/filesystem.js';
import { createUserWithKey } from '../../../../src/server/features/accounts/users.js';
import { insertAudio, type AudioRow } from '../../../../src/server/features/audio/repository.js';
import { audioExpired, expireAudio, startAudioRetention } from '../../../../src/server/features/audio/retention.js';
import { insertCorpus } from '../../../../src/server/features/corpora/repository.js';
import { pino } from 'pino';

const NOW = new Date('2026-11-29T12:00:00Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString();

describe('audio retention', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-retention-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function setUp(name: string) {
    const db = await openSqliteDatabase(join(dir, `${name}.db`));
    const { user } = await createUserWithKey(db, { email: `${name}@example.com`, now: NOW });
    const audioDir = join(dir, `${name}-audio`);
    const blobs = createFilesystemBlobStore(audioDir);
    const add = async (id: string, kind: AudioRow['kind'], createdAt: string) => {
      const row: AudioRow = { id, user_id: kind === 'sample' ? null : user.id, kind, path: `${id}.wav`, format: 'wav', bytes: 4, duration_seconds: 1, sample_rate: 16000, created_at: createdAt };
      await blobs.put(row.path, Buffer.from('RIFF'));
      await insertAudio(db, row);
      return row;
    };
    return { db, blobs, user, audioDir, add };
  }

  it('deletes old generated audio and single uploads, keeps corpora, samples and what is recent', async () => {
    const { db, blobs, user, audioDir, add } = await setUp('kinds');
    await add('aud_old_tts', 'tts', daysAgo(40));
    await add('aud_old_upload', 'upload', daysAgo(31));
    await add('aud_new_tts', 'tts', daysAgo(29));
    await add('sample_old', 'sample', daysAgo(400));
    const recording = await add('aud_cold_0', 'upload', daysAgo(90));
    await insertCorpus(
      db,
      { id: 'cor_old', user_id: user.id, name: 'calls', layout: 'audiofolder', utterance_count: 1, speaker_count: 0, total_duration_seconds: 1, metadata_fields: '[]', created_at: daysAgo(90) },
      [],
      [{ corpus_id: 'cor_old', idx: 0, utterance_id: 'u0', speaker: null, reference: 'hello', duration_seconds: 1, metadata: '{}', audio_id: recording.id, sample_rate: 16000, segments: null }],
    );

    expect(await expireAudio(db, blobs, { before: new Date(daysAgo(30)), now: NOW })).toBe(2);
    const files = (id: string) => existsSync(join(audioDir, `${id}.wav`));
    expect(['aud_old_tts', 'aud_old_upload'].map(files)).toEqual([false, false]);
    expect(['aud_new_tts', 'sample_old', 'aud_cold_0'].map(files)).toEqual([true, true, true]);
    const rows = await db.all<{ id: string; expired_at: string | null }>('SELECT id, expired_at FROM audio ORDER BY id');
    expect(Object.fromEntries(rows.map((r) => [r.id, r.expired_at]))).toEqual({
      aud_cold_0: null,
      aud_new_tts: null,
      aud_old_tts: NOW.toISOString(),
      aud_old_upload: NOW.toISOString(),
      sample_old: null,
    });
    // Idempotent: nothing is left to delete, and the marks keep their time.
    expect(await expireAudio(db, blobs, { before: new Date(daysAgo(30)), now: new Date(NOW.getTime() + 3_600_000) })).toBe(0);
    expect(await db.value('SELECT expired_at FROM audio WHERE id = ?', ['aud_old_tts'])).toBe(NOW.toISOString());
    await db.close();
  });

  it('a row whose file is already gone is marked all the same; more than one batch is swept in one go', async () => {
    const { db, blobs, audioDir, add } = await setUp('batches');
    for (let i = 0; i < 1203; i++) await add(`aud_b${i}`, 'tts', daysAgo(10));
    rmSync(join(audioDir, 'aud_b7.wav'));
    expect(await expireAudio(db, blobs, { before: new Date(daysAgo(1)), now: NOW })).toBe(1203);
    expect(await db.value('SELECT COUNT(*) FROM audio WHERE expired_at IS NULL')).toBe(0);
    await db.close();
  });

  it('a file left by a crash between the mark and the delete goes at the first sweep after a start', async () => {
    const { db, blobs, audioDir, add } = await setUp('crash');
    await add('aud_marked', 'tts', daysAgo(5));
    await add('aud_marked_long_ago', 'tts', daysAgo(50));
    await db.run('UPDATE audio SET expired_at = ? WHERE id = ?', [daysAgo(0.5), 'aud_marked']);
    await db.run('UPDATE audio SET expired_at = ? WHERE id = ?', [daysAgo(20), 'aud_marked_long_ago']);
    const logger = pino({ level: 'silent' });
    const retention = startAudioRetention({ db, blobs, clock: { now: () => NOW }, logger, days: 2 });
    try {
      expect(await retention.sweep()).toBe(0);
      expect(existsSync(join(audioDir, 'aud_marked.wav'))).toBe(false);
      // Only the last day's marks are looked at again (a start is not a full scan of history).
      expect(existsSync(join(audioDir, 'aud_marked_long_ago.wav'))).toBe(true);
    } finally {
      await retention.close();
      await db.close();
    }
  });

  it('the started retention sweeps at once and logs one line with the count', async () => {
    const { db, blobs, add } = await setUp('started');
    await add('aud_gone', 'tts', daysAgo(3));
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const retention = startAudioRetention({ db, blobs, clock: { now: () => NOW }, logger, days: 2 });
    try {
      // The first sweep runs in the background; asking again waits for the one under way.
      await retention.sweep();
      expect(await db.value('SELECT expired_at FROM audio WHERE id = ?', ['aud_gone'])).toBe(NOW.toISOString());
      const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ event: 'audio_expired', count: 1, retention_days: 2, msg: 'deleted 1 audio files older than 2 days' });
      // A sweep that finds nothing says nothing.
      expect(await retention.sweep()).toBe(0);
      expect(lines).toHaveLength(1);
    } finally {
      await retention.close();
      await db.close();
    }
  });

  it('a close stops a sweep under way after its batch, and waits for it', async () => {
    const { db, blobs, add } = await setUp('closing');
    for (let i = 0; i < 1500; i++) await add(`aud_c${i}`, 'tts', daysAgo(10));
    const retention = startAudioRetention({ db, blobs, clock: { now: () => NOW }, logger: pino({ level: 'silent' }), days: 1 });
    // The first sweep started with the retention; closing at once lets at most its first batch through.
    await retention.close();
    const left = Number(await db.value('SELECT COUNT(*) FROM audio WHERE expired_at IS NULL'));
    expect(left).toBeGreaterThanOrEqual(1000);
    await db.close();
  });

  it('says how long the service keeps audio, or that an earlier setting deleted it', () => {
    expect(audioExpired(30).message).toBe('Audio expired: this service keeps audio for 30 days');
    expect(audioExpired(undefined).message).toBe('Audio expired: deleted under an earlier audio retention');
    expect(audioExpired(30).code).toBe('audio_expired');
  });
});
