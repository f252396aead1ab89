import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * Puts a copy of the run's migrated SQLite template (test/setup/sqlite-template.global.ts) at `file`
 * unless a database is already there: a server opening it finds every migration applied and the speakers
 * seeded, as after its first start. A database a test prepared (an old schema, a copy) is left alone.
 */
export function seedSqliteFile(file: string): void {
  if (existsSync(file)) return;
  copyFileSync(inject('sqliteTemplate'), file);
}

/** `seedSqliteFile` for the database of a data dir (`{dataDir}/voxctl.db`), creating the dir (0700) if needed. */
export function seedSqliteDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  seedSqliteFile(join(dataDir, 'voxctl.db'));
}

declare module 'vitest' {
  export interface ProvidedContext {
    sqliteTemplate: string;
  }
}
