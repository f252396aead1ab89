import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { resolveDataDir } from '../../shared/paths.js';
import { TIERS } from '../../shared/schemas/users.js';
import { CliError, usageError } from '../errors.js';
import { DomainError } from '../../shared/errors.js';
import { createEnv, type CliEnv } from '../env.js';

/** What the admin commands use of the handler context. */
export interface AdminContext {
  env: CliEnv;
  stdout: { write(chunk: string): unknown };
}

interface CreateFlags {
  email: string;
  name?: string;
  tier: string;
  dataDir?: string;
}

/**
 * `voxctl admin users create`: for whoever hosts the service. Writes straight to the database of the data
 * dir (no server needed, same services as the API) and prints only the new key on stdout, for scripts.
 */
export async function createUserCommand(flags: CreateFlags, ctx: AdminContext): Promise<void> {
  // Loaded lazily: the client commands should not pay for SQLite.
  const { validateNewUser, createUserWithKey, openSqliteDatabase } = await import('../../server/admin.js');
  try {
    validateNewUser(flags);
  } catch (err) {
    if (err instanceof DomainError) throw usageError(err.message, 'voxctl admin users create --email you@example.com [--tier pro]');
    throw err;
  }
  const dataDir = resolveDataDir(flags.dataDir, ctx.env.raw());
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = openSqliteDatabase(join(dataDir, 'voxctl.db'));
  try {
    const { key } = await createUserWithKey(db, { email: flags.email, name: flags.name, tier: flags.tier, now: new Date() });
    ctx.stdout.write(`${key.key}\n`);
  } catch (err) {
    if (err instanceof DomainError) throw new CliError(err.message, { cause: err });
    throw err;
  } finally {
    await db.close();
  }
}

/** Registers `voxctl admin users create`. */
export function registerAdmin(program: Command, ctx: AdminContext = { env: createEnv(), stdout: process.stdout }): void {
  const admin = program.command('admin').description('Administer a service you host (writes to its data dir directly)');
  const users = admin.command('users').description('Manage users of the service');
  users
    .command('create')
    .description('Create a user and print its first API key (only the key, on stdout)')
    .requiredOption('--email <email>', 'the user\'s email address')
    .option('--name <name>', 'display name')
    .addOption(new Option('--tier <tier>', 'subscription tier').default('free'))
    .option('--data-dir <dir>', 'data folder (default VOXCTL_DATA_DIR or the OS user data dir)')
    .addHelpText(
      'after',
      `\nTiers: ${TIERS.join(', ')}.\n\nExamples:\n  $ voxctl admin users create --email ada@example.com --name Ada --tier pro\n  $ KEY=$(voxctl admin users create --email ci@example.com --data-dir /srv/voxctl)`,
    )
    .action(async (flags: CreateFlags) => createUserCommand(flags, ctx));
}
