import type { Db } from '../db.js';

/** Stores `value` under `name` unless a value is there already; resolves to the value that stands. */
export async function settingOrInsert(db: Db, name: string, value: string): Promise<string> {
  await db.run('INSERT INTO server_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [name, value]);
  return (await db.value<string>('SELECT value FROM server_settings WHERE name = ?', [name]))!;
}
