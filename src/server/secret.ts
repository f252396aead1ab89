import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './storage/db.js';
import { settingOrInsert } from './storage/repositories/server-settings.js';

/** Loads the server's URL-signing secret from `{dataDir}/secret`, creating it (0600) on first start. */
export function loadOrCreateSecret(dataDir: string): Buffer {
  const file = join(dataDir, 'secret');
  if (existsSync(file)) {
    const secret = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    if (secret.length >= 32) return secret;
  }
  const secret = randomBytes(32);
  // `wx` refuses to overwrite: two servers racing on one data dir both end up with the first secret.
  try {
    writeFileSync(file, secret.toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  }
}

/**
 * The secret of instances sharing one PostgreSQL (DESIGN §9.2): created by the first instance, read by
 * the others, so a URL or portal link signed by one verifies at any other.
 */
export async function loadOrCreateSharedSecret(db: Db): Promise<Buffer> {
  const stored = await settingOrInsert(db, 'url_signing_secret', randomBytes(32).toString('base64url'));
  return Buffer.from(stored, 'base64url');
}
