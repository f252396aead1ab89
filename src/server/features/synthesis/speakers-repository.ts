import type { Db } from '../../storage/db.js';
import { filterKey } from '../../storage/filter-key.js';

/** A row of `speakers` (without the `*_key` comparison columns). */
export interface SpeakerRow {
  seq: number;
  id: string;
  gender: string;
  region: string;
  accent: string;
  age_range: string;
  native_language: string;
  engine: 'flite' | 'espeak';
  voice: string;
  variant: string | null;
  pitch: number;
  rate: number;
}

/** The filterable columns (API names = column names). */
export const SPEAKER_FILTERS = ['gender', 'region', 'accent', 'age_range', 'native_language', 'engine'] as const;
export type SpeakerFilter = (typeof SPEAKER_FILTERS)[number];
export type SpeakerFilters = Partial<Record<SpeakerFilter, string>>;

const COLUMNS = 'seq, id, gender, region, accent, age_range, native_language, engine, voice, variant, pitch, rate';

/** WHERE clause over the indexed `*_key` columns; values are lower-cased like the stored keys. */
function where(filters: SpeakerFilters): { sql: string; params: string[] } {
  const clauses: string[] = [];
  const params: string[] = [];
  for (const name of SPEAKER_FILTERS) {
    const value = filters[name];
    if (value === undefined) continue;
    // `engine` is stored lower-case (a CHECK allows only flite and espeak): the column is its own key.
    clauses.push(name === 'engine' ? 'engine = ?' : `${name}_key = ?`);
    params.push(filterKey(value));
  }
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/** The SQL and parameters of one page (exported so a test can EXPLAIN it). */
export function speakerPageQuery(filters: SpeakerFilters, page: { limit: number; offset: number }) {
  const w = where(filters);
  return {
    items: { sql: `SELECT ${COLUMNS} FROM speakers ${w.sql} ORDER BY seq LIMIT ? OFFSET ?`, params: [...w.params, page.limit, page.offset] },
    count: { sql: `SELECT count(*) AS n FROM speakers ${w.sql}`, params: w.params },
  };
}

// The catalogue is written only by its migration, so a query's answer never changes while a database is
// open; reading rows costs ~0.5 µs a value through better-sqlite3 and counting scans every match, which is
// most of a list request's cost. So answers are kept per db, bounded (cleared when full).
const answers = new WeakMap<Db, Map<string, unknown>>();
const MAX_ANSWERS = 4096;

async function remembered<T>(db: Db, sql: string, params: readonly (string | number)[], run: () => Promise<T>): Promise<T> {
  let byDb = answers.get(db);
  if (!byDb) answers.set(db, (byDb = new Map()));
  const key = `${sql}\u0000${params.join('\u0000')}`;
  if (byDb.has(key)) return byDb.get(key) as T;
  const value = await run();
  // A miss (unknown id: arbitrary client input) is not kept, so requests cannot fill the memo with junk.
  if (value === undefined) return value;
  if (byDb.size >= MAX_ANSWERS) byDb.clear();
  byDb.set(key, value);
  return value;
}

function matchCount(db: Db, sql: string, params: string[]): Promise<number> {
  return remembered(db, sql, params, async () => Number((await db.value<number>(sql, params)) ?? 0));
}

/** One page of speakers matching `filters` (catalogue order) and the number of matches. */
export async function listSpeakers(
  db: Db,
  filters: SpeakerFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: SpeakerRow[]; total: number }> {
  const q = speakerPageQuery(filters, page);
  // Frozen: the same row objects are handed to every caller.
  const rows = (await remembered(db, q.items.sql, q.items.params, async () =>
    Object.freeze((await db.all<SpeakerRow>(q.items.sql, q.items.params)).map((r) => Object.freeze(r))),
  )) as SpeakerRow[];
  return { rows, total: await matchCount(db, q.count.sql, q.count.params) };
}

/** The speaker with `id`, if any. */
export function getSpeaker(db: Db, id: string): Promise<SpeakerRow | undefined> {
  const sql = `SELECT ${COLUMNS} FROM speakers WHERE id = ?`;
  return remembered(db, sql, [id], async () => {
    const found = await db.get<SpeakerRow>(sql, [id]);
    return found ? Object.freeze(found) : undefined;
  });
}

/** Every speaker id of the catalogue (kept: the catalogue never changes while the db is open). */
export function listSpeakerIds(db: Db): Promise<ReadonlySet<string>> {
  const sql = 'SELECT id FROM speakers';
  return remembered(db, sql, [], async () => new Set(await db.column<string>(sql)) as ReadonlySet<string>);
}

/** Number of speakers in the catalogue. */
export function countSpeakers(db: Db): Promise<number> {
  return matchCount(db, 'SELECT count(*) AS n FROM speakers', []);
}

/** Each distinct value of `column` with its count, most common first (ties by value). */
export async function speakerValueCounts(db: Db, column: SpeakerFilter): Promise<{ value: string; count: number }[]> {
  // `column` is one of SPEAKER_FILTERS, never user input.
  const rows = await db.all<{ value: string; count: number }>(
    `SELECT ${column} AS value, count(*) AS count FROM speakers GROUP BY ${column} ORDER BY count DESC, value`,
  );
  return rows.map((r) => ({ value: r.value, count: Number(r.count) }));
}
