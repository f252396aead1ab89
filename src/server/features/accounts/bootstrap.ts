import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../storage/db.js';
import { countUsers } from './users-repository.js';
import { API_KEY_PATTERN } from './keys.js';
import { createUserWithKey } from './users.js';

/** Email of the user created on first start. */
export const BOOTSTRAP_EMAIL = 'admin@localhost';

/** What first start created: the key (to print once) and why a given bootstrap key was not used. */
export interface BootstrapResult {
  key: string;
  /** Set when VOXCTL_BOOTSTRAP_KEY was given but malformed (a random key was made instead). */
  warning?: string;
}

/**
 * On an empty users table: creates the `pro` user `admin@localhost` with a full-scope key (`bootstrapKey`
 * when it is a well-formed key, else a random one) and writes it to `{dataDir}/bootstrap-key` (0600).
 * Returns undefined when users already exist.
 */
export async function bootstrapIfEmpty(db: Db, opts: { dataDir: string; bootstrapKey?: string; now: Date }): Promise<BootstrapResult | undefined> {
  const given = opts.bootstrapKey?.trim() || undefined;
  const usable = given !== undefined && API_KEY_PATTERN.test(given) ? given : undefined;
  // countUsers and the insert are separate statements, but createUserWithKey re-checks the email in its
  // transaction, so two servers starting on one data dir cannot both create the admin.
  if ((await countUsers(db)) > 0) return undefined;
  let key: string;
  try {
    key = (await createUserWithKey(db, { email: BOOTSTRAP_EMAIL, name: 'Administrator', tier: 'pro', now: opts.now, key: usable })).key.key;
  } catch (err) {
    if ((await countUsers(db)) > 0) return undefined;
    throw err;
  }
  const file = join(opts.dataDir, 'bootstrap-key');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  const result: BootstrapResult = { key };
  if (given !== undefined && usable === undefined) {
    result.warning = 'VOXCTL_BOOTSTRAP_KEY ignored: it must be vox_ followed by 40 url-safe characters';
  }
  return result;
}
