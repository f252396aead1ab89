import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { resolveDataDir } from '../../shared/paths.js';
import { TIERS } from '../../shared/schemas/users.js';
import { CliError, usageError } from '../errors.js';
import { DomainError } from '../../shared/errors.js';
import { createEnv, type CliEnv } from '../env.js';
import { databaseUrlProblem } from '../../shared/database-url.js';
import { registerSchemaCommands } from './admin-schema.js';

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
  databaseUrl?: string;
}

/**
 * `voxctl admin users create`: for whoever hosts the service. Writes straight to the database of the data
 * dir (no server needed, same services as the API) and prints only the new key on stdout, for scripts.
 */
export async function createUserCommand(flags: CreateFlags, ctx: AdminContext): Promise<void> {
  // Loaded lazily: the client commands should not pay for SQLite.
  const { validateNewUser, createUserWithKey, openDatabase } = await import('../../server/admin.js');
  try {
    validateNewUser(flags);
  } catch (err) {
    if (err instanceof DomainError) throw usageError(err.message, 'voxctl admin users create --email you@example.com [--tier pro]');
    throw err;
  }
  // The shared PostgreSQL of the instances (DESIGN §9.1), else the data dir's SQLite file.
  const databaseUrl = flags.databaseUrl ?? (ctx.env.raw().VOXCTL_DATABASE_URL || undefined);
  if (databaseUrl !== undefined) {
    const problem = databaseUrlProblem(databaseUrl);
    if (problem) throw usageError(problem);
  }
  const dataDir = resolveDataDir(flags.dataDir, ctx.env.raw());
  if (!databaseUrl) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let db;
  try {
    db = await openDatabase(databaseUrl ? { url: databaseUrl } : { file: join(dataDir, 'voxctl.db') });
  } catch (err) {
    // openDatabase masks the password; nothing else of the URL is secret.
    throw new CliError(`Cannot open the database: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
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
    .option('--database-url <url>', 'the PostgreSQL of instances started with --database-url (default VOXCTL_DATABASE_URL)')
    .addHelpText(
      'after',
      `\nTiers: ${TIERS.join(', ')}.\n\nExamples:\n  $ voxctl admin users create --email ada@example.com --name Ada --tier pro\n  $ KEY=$(voxctl admin users create --email ci@example.com --data-dir /srv/voxctl)\n  $ VOXCTL_DATABASE_URL=postgres://voxctl@db/voxctl voxctl admin users create --email team@example.com --tier pro`,
    )
    .action(async (flags: CreateFlags) => createUserCommand(flags, ctx));
  registerSchemaCommands(admin, ctx);
}
