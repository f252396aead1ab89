import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../../src/server/storage/db.js';
import { createSampleProvider } from '../../../../../src/server/features/synthesis/samples.js';
import { createTtsPool } from '../../../../../src/server/engines/tts/pool.js';
import type { TtsPool } from '../../../../../src/server/engines/tts/types.js';
import { systemClock } from '../../../../../src/server/clock.js';
import { decodeWavToPcm16 } from '../../../../../src/server/audio/wav.js';
import { dataDirBlobs } from '../../../../helpers/work.js';

describe('speaker samples in each catalogue language (real engines)', () => {
  let dir: string;
  let db: Db;
  let pool: TtsPool;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxctl-samples-'));
    db = await openSqliteDatabase(join(dir, 'voxctl.db'));
    pool = createTtsPool({ size: 2 });
  });
  afterAll(async () => {
    await pool.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('produces non-silent audio for one speaker of every language with a native sentence', async () => {
    const samples = createSampleProvider({ db, blobs: dataDirBlobs(dir), clock: systemClock, tts: () => pool });
    const langs = ['English', 'German', 'Spanish', 'Russian', 'Mandarin Chinese', 'Japanese', 'Arabic', 'Hindi', 'Greek'];
    for (const lang of langs) {
      const id = await db.value<string>('SELECT id FROM speakers WHERE native_language = ? LIMIT 1', [lang]);
      expect(id, lang).toBeTypeOf('string');
      const row = await samples.get(`smp_${id}`);
      expect(row, lang).toMatchObject({ kind: 'sample', format: 'wav' });
      const { pcm } = decodeWavToPcm16(readFileSync(join(dir, 'audio', row!.path)));
      let peak = 0;
      for (const v of pcm) peak = Math.max(peak, Math.abs(v));
      expect(peak, lang).toBeGreaterThan(1000);
    }
    expect(await samples.get('smp_spk_nobody')).toBeUndefined();
  }, 120_000);
});
