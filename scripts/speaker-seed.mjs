// Writes the speaker catalogue as fixed data (src/server/storage/migrations/seed/), from the generator in
// the built tree. Run `npm run build && node scripts/speaker-seed.mjs NAME` only to create a NEW seed file
// for a new migration: speakers-002.json must never change (its rows are in the checksums of SQLite
// migration 2 and PostgreSQL migration 1, and old and new databases would hold different catalogues).
// test/unit/server/storage/speaker-seed.test.ts checks that the committed seed and the generator agree.
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateCatalogue } from '../dist/server/engines/tts/catalogue.js';

const name = process.argv[2];
if (!name || !/^[a-z0-9-]+$/.test(name)) {
  console.error('usage: node scripts/speaker-seed.mjs NAME   (writes src/server/storage/migrations/seed/NAME.json)');
  process.exit(2);
}
const out = fileURLToPath(new URL(`../src/server/storage/migrations/seed/${name}.json`, import.meta.url));
if (existsSync(out)) {
  console.error(`${out} exists: a published seed never changes; choose a new name`);
  process.exit(1);
}
const COLUMNS = ['id', 'gender', 'region', 'accent', 'age_range', 'native_language', 'engine', 'voice', 'variant', 'pitch', 'rate'];
// One row per line, so a review reads a change of the catalogue row by row.
const rows = generateCatalogue().map((s) => `    ${JSON.stringify(COLUMNS.map((c) => s[c] ?? null))}`);
writeFileSync(out, `{\n  "columns": ${JSON.stringify(COLUMNS)},\n  "rows": [\n${rows.join(',\n')}\n  ]\n}\n`);
console.log(`wrote ${rows.length} speakers to ${out}`);
