import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateCatalogue } from '../../../../src/server/engines/tts/catalogue.js';
import { speakerSeed } from '../../../../src/server/storage/migrations/speaker-seed.js';
import { migrate } from '../../../../src/server/storage/migrations/index.js';
import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

// Migration 002 inserts fixed rows so that no later edit of the generator changes what a new database holds;
// these tests say when the two drift apart (then the generator change needs a new migration, not a new seed).
describe('speaker seed of migration 002', () => {
  const generated = generateCatalogue();

  it('is the generator output, row for row', () => {
    const seed = speakerSeed().map(([id, gender, region, accent, age_range, native_language, engine, voice, variant, pitch, rate]) => ({
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

describe('the speaker seed as data', () => {
  // `npm pack --dry-run` says the same in 7-20 s of CPU; the package ships dist/, where the build copies the seed.
  it('is a JSON file beside the built code, copied by the build the package ships', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { files: string[]; scripts: Record<string, string> };
    expect(pkg.files).toContain('dist');
    for (const script of ['build', 'prepare']) expect(pkg.scripts[script]).toMatch(/^tsc -b [^&]+&& node scripts\/copy-assets\.mjs/);
    expect(existsSync(`${ROOT}dist/server/storage/migrations/seed/speakers-002.json`)).toBe(true);
    expect(speakerSeed()).toHaveLength(2532);
  });
});
