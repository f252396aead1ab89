import { describe, expect, it } from 'vitest';
import { generateCatalogue } from '../../../../src/server/engines/tts/catalogue.js';
import { SPEAKERS_002 } from '../../../../src/server/storage/migrations/002-speakers-seed.js';
import { migrate } from '../../../../src/server/storage/migrations/index.js';
import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';

// Migration 002 inserts fixed rows so that no later edit of the generator changes what a new database holds;
// these tests say when the two drift apart (then the generator change needs a new migration, not a new seed).
describe('speaker seed of migration 002', () => {
  const generated = generateCatalogue();

  it('is the generator output, row for row', () => {
    const seed = SPEAKERS_002.map(([id, gender, region, accent, age_range, native_language, engine, voice, variant, pitch, rate]) => ({
      id, gender, region, accent, age_range, native_language, engine, voice, ...(variant === null ? {} : { variant }), pitch, rate,
    }));
    expect(seed).toEqual(generated);
  });

  it('is what a migrated database lists, in order', () => {
    const Database = loadSqliteDriver();
    const db = new Database(':memory:');
    migrate(db);
    const rows = db.prepare('SELECT id, engine, voice, variant, pitch, rate FROM speakers ORDER BY seq').all();
    db.close();
    expect(rows).toEqual(generated.map((s) => ({ id: s.id, engine: s.engine, voice: s.voice, variant: s.variant ?? null, pitch: s.pitch, rate: s.rate })));
  });
});
