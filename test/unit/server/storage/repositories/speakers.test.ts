import { describe, expect, it } from 'vitest';
import { loadSqliteDriver } from '../../../../../src/server/storage/sqlite-driver.js';
import { migrateRaw } from '../../../../helpers/migrated-sqlite.js';
import { createSqliteDb } from '../../../../../src/server/storage/sql/sqlite.js';
import { listSpeakers, SPEAKER_FILTERS, speakerPageQuery } from '../../../../../src/server/features/synthesis/speakers-repository.js';
import { findSpeaker, speakerBinding } from '../../../../../src/server/features/synthesis/speakers.js';

const Database = loadSqliteDriver();

function migrated() {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrateRaw(db);
  return db;
}

describe('speakers repository', () => {
  const raw = migrated();
  const db = createSqliteDb(raw);

  it('seeds the catalogue', () => {
    expect((raw.prepare('SELECT count(*) AS n FROM speakers').get() as { n: number }).n).toBeGreaterThanOrEqual(2400);
  });

  it.each(SPEAKER_FILTERS.map((f) => [f]))('filter %s uses its index', (filter) => {
    const q = speakerPageQuery({ [filter]: 'x' }, { limit: 20, offset: 0 });
    for (const { sql, params } of [q.items, q.count]) {
      const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('\n');
      expect(plan).toMatch(new RegExp(`USING (COVERING )?INDEX speakers_${filter}\\b`));
      expect(plan).not.toMatch(/SCAN speakers(?! USING)/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('combined filters still use an index', () => {
    const q = speakerPageQuery({ gender: 'female', region: 'europe', accent: 'scottish' }, { limit: 20, offset: 0 });
    const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${q.items.sql}`).all(...q.items.params) as { detail: string }[]).map((r) => r.detail).join('\n');
    expect(plan).toMatch(/USING INDEX speakers_/);
  });

  it('matches case-insensitively', async () => {
    const a = await listSpeakers(db, { accent: 'SCOTTISH' }, { limit: 100, offset: 0 });
    const b = await listSpeakers(db, { accent: 'scottish' }, { limit: 100, offset: 0 });
    expect(a.total).toBeGreaterThan(0);
    expect(a).toEqual(b);
  });

  it('binds speakers to engine voices', async () => {
    expect(speakerBinding((await findSpeaker(db, 'spk_flite-slt_001'))!)).toEqual({ engine: 'flite', voice: 'slt', pitch: 0, rate: 1 });
    const scot = speakerBinding((await findSpeaker(db, 'spk_en-gb-scotland_001'))!);
    expect(scot).toMatchObject({ engine: 'espeak', voice: 'en-gb-scotland', variant: expect.any(String) });
  });
});
