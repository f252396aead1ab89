import { readFileSync } from 'node:fs';
import type { Db, Dialect } from '../sql/types.js';
import { insertSpeakerSeed } from './speaker-seed.js';

/**
 * The schema a database has after migrations 1..version, as one script per dialect (baseline/sqlite.sql,
 * baseline/postgres.sql), so a new database is made in one step instead of replaying every migration and
 * every table rebuild of the history (as pg-boss installs its schema). scripts/migration-baseline.mjs
 * writes it from a database migrated through the history, with the rows the history leaves (its
 * `voxctl_schema_migrations` rows and, on PostgreSQL, `cache_epoch`) — all but the speaker catalogue,
 * which is data (seed/speakers-002.json) and is written here. Existing databases still upgrade through
 * the migrations; a test makes a database both ways and compares their schema dumps and rows.
 */
export interface Baseline {
  /** The last migration it stands for: later ones are applied on top as usual. */
  version: number;
  sql: string;
}

const VERSION_LINE = /^-- version: (\d+)$/m;

/** The committed baseline of a dialect (read once); undefined if the build has none. */
export function readBaseline(dialect: Dialect): Baseline | undefined {
  if (!BASELINES.has(dialect)) BASELINES.set(dialect, load(new URL(`./baseline/${dialect}.sql`, import.meta.url)));
  return BASELINES.get(dialect);
}

const BASELINES = new Map<Dialect, Baseline | undefined>();

function load(file: URL): Baseline | undefined {
  let sql: string;
  try {
    sql = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const version = VERSION_LINE.exec(sql)?.[1];
  if (version === undefined) throw new Error(`${file.pathname}: no "-- version: N" line`);
  return { version: Number(version), sql };
}

/** Makes an empty database the baseline's schema with its rows, inside the caller's transaction. */
export async function applyBaseline(db: Db, baseline: Baseline): Promise<void> {
  await db.exec(baseline.sql);
  await insertSpeakerSeed(db);
}
