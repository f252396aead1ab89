import type BetterSqlite3 from 'better-sqlite3';
import { readBaseline } from '../../src/server/storage/migrations/baseline.js';
import { SPEAKER_COLUMNS, speakerRow, speakerSeed } from '../../src/server/storage/migrations/speaker-seed.js';

/**
 * Gives a new raw SQLite handle every migration, synchronously, as the service makes a new database: the
 * baseline script and the speaker seed (baseline.ts; test/unit/server/storage/baseline.test.ts proves the
 * baseline is what replaying every migration makes). For tests that need the raw driver (EXPLAIN QUERY
 * PLAN) and set up at describe time.
 */
export function migrateRaw(raw: BetterSqlite3.Database): BetterSqlite3.Database {
  raw.exec(readBaseline('sqlite')!.sql);
  const insert = raw.prepare(`INSERT INTO speakers (${SPEAKER_COLUMNS}) VALUES (${Array.from({ length: 17 }, () => '?').join(', ')})`);
  raw.transaction(() => speakerSeed().forEach((row, i) => insert.run(...speakerRow(row, i + 1))))();
  return raw;
}
