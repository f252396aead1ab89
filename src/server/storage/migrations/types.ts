import type Database from 'better-sqlite3';

/** One schema step; `up` runs inside a transaction and must be deterministic. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}
