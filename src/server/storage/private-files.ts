import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';

/**
 * Makes a SQLite file owner-only (0600), like the other secrets of the data dir: it holds key hashes,
 * usage and billing data. The file is created 0600 before SQLite opens it, because SQLite creates the
 * `-wal` and `-shm` files with the mode of the database file; files an earlier version left readable
 * (0644) are tightened too. In-memory and temporary databases have no file and are left alone.
 */
export function makeDatabaseFilesPrivate(file: string): void {
  if (file === '' || file === ':memory:' || file.startsWith('file:')) return;
  closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path)) chmodSync(path, 0o600);
  }
}
