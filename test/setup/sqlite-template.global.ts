import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openSqliteDatabase } from '../../src/server/storage/db.js';

/**
 * Global setup: one SQLite database migrated from scratch (every migration and the 2,538-row speaker seed)
 * for the whole run. Test servers start on a copy of it (helpers/sqlite-template.ts) instead of migrating a
 * fresh file each time (0.35–1.0 s a start-up); tests of migration itself still start from nothing.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // Every project of the run shares the one template (global setups run in vitest's one main process).
  const shared = ((globalThis as { [SHARED]?: Shared })[SHARED] ??= { users: 0 });
  shared.made ??= makeTemplate();
  shared.users += 1;
  const { file, dir } = await shared.made;
  project.provide('sqliteTemplate', file);
  return () => {
    shared.users -= 1;
    if (shared.users === 0) {
      shared.made = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const SHARED = Symbol.for('voxctl.test.sqlite-template');
interface Shared {
  users: number;
  made?: Promise<{ file: string; dir: string }>;
}

/** Migrates a new SQLite file and folds its WAL in, so the one file is the whole database. */
async function makeTemplate(): Promise<{ file: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-sqlite-template-'));
  const file = join(dir, 'voxctl.db');
  const db = await openSqliteDatabase(file);
  try {
    await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    await db.close();
  }
  return { file, dir };
}
