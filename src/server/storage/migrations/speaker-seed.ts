import { readFileSync } from 'node:fs';
import type { Db } from '../sql/types.js';
import { filterKey } from '../filter-key.js';
import type { SpeakerSeedRow } from './speaker-seed-row.js';

/**
 * The speaker catalogue as data (DESIGN §4.5: fixed rows written once from the generator, so a later
 * change to the generator cannot give new databases another catalogue). Copied beside the build by
 * scripts/copy-assets.mjs; its rows are part of the checksum of SQLite migration 2 and PostgreSQL
 * migration 1, so an edit of this file fails the committed checksums.
 */
const SEED_FILE = new URL('./seed/speakers-002.json', import.meta.url);

const COLUMNS = ['id', 'gender', 'region', 'accent', 'age_range', 'native_language', 'engine', 'voice', 'variant', 'pitch', 'rate'] as const;

let rows: readonly SpeakerSeedRow[] | undefined;

/** The 2,532 speakers of the seed, in listing order (read once, checked row by row). */
export function speakerSeed(): readonly SpeakerSeedRow[] {
  rows ??= parseSeed(readFileSync(SEED_FILE, 'utf8'));
  return rows;
}

function parseSeed(text: string): readonly SpeakerSeedRow[] {
  const data = JSON.parse(text) as { columns?: unknown; rows?: unknown };
  if (JSON.stringify(data.columns) !== JSON.stringify(COLUMNS) || !Array.isArray(data.rows)) {
    throw new Error(`${SEED_FILE.pathname}: expected {"columns": ${JSON.stringify(COLUMNS)}, "rows": [...]}`);
  }
  return data.rows.map((row: unknown, i) => {
    if (!isSeedRow(row)) throw new Error(`${SEED_FILE.pathname}: row ${i + 1} is not (${COLUMNS.join(', ')})`);
    return row;
  });
}

function isSeedRow(row: unknown): row is SpeakerSeedRow {
  if (!Array.isArray(row) || row.length !== COLUMNS.length) return false;
  const [id, gender, region, accent, ageRange, language, engine, voice, variant, pitch, rate] = row as unknown[];
  const texts = [id, gender, region, accent, ageRange, language, voice];
  return (
    texts.every((t) => typeof t === 'string') &&
    (engine === 'flite' || engine === 'espeak') &&
    (variant === null || typeof variant === 'string') &&
    typeof pitch === 'number' &&
    typeof rate === 'number'
  );
}

/** The `speakers` table's columns for one seed row at `seq` (the lower-cased `*_key` columns the filters use). */
export function speakerRow(row: SpeakerSeedRow, seq: number): (string | number | null)[] {
  const [id, gender, region, accent, ageRange, language, engine, voice, variant, pitch, rate] = row;
  return [seq, id, gender, region, accent, ageRange, language, engine, voice, variant, pitch, rate,
    filterKey(gender), filterKey(region), filterKey(accent), filterKey(ageRange), filterKey(language)];
}

/** The `speakers` columns `speakerRow` gives, in its order. */
export const SPEAKER_COLUMNS =
  'seq, id, gender, region, accent, age_range, native_language, engine, voice, variant, pitch, rate, gender_key, region_key, accent_key, age_range_key, native_language_key';

/** Rows per INSERT: one statement per row would cost a round trip each on a remote PostgreSQL. */
const BATCH = 250;

/** Writes the seed into an empty `speakers` table through the seam (a fresh database's baseline). */
export async function insertSpeakerSeed(db: Db): Promise<void> {
  const all = speakerSeed();
  const tuple = `(${Array.from({ length: 17 }, () => '?').join(', ')})`;
  for (let start = 0; start < all.length; start += BATCH) {
    const batch = all.slice(start, start + BATCH);
    await db.run(`INSERT INTO speakers (${SPEAKER_COLUMNS}) VALUES ${batch.map(() => tuple).join(', ')}`, batch.flatMap((r, i) => speakerRow(r, start + i + 1)));
  }
}
