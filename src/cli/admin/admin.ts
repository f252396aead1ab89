import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from '../core/commander.js';
import { resolveDataDir } from '../../shared/paths.js';
import { TIERS } from '../../shared/schemas/users.js';
import { CliError, EXIT_BY_ERROR_CODE, usageError } from '../core/errors.js';
import { DomainError } from '../../shared/errors.js';
import { flagsOf, intOption } from '../core/util.js';
import { createEnv } from '../core/env.js';
import { databaseUrlProblem } from '../../shared/database-url.js';
import { registerSchemaCommands } from './schema.js';
import { registerBackupCommands } from './backup.js';
import type { AdminContext } from './context.js';
import type { Db } from '../../server/storage/db.js';
import type { AdminUser } from '../../server/features/accounts/users.js';
import type * as AdminApi from '../../server/admin.js';
import { describeCommand } from '../command-groups.js';

/** The server module the admin commands load lazily. */
type AdminModule = typeof AdminApi;

interface CreateFlags {
  email: string;
  name?: string;
  tier: string;
  dataDir?: string;
  databaseUrl?: string;
}

/** Where an admin command works: the shared PostgreSQL of the instances, else the data dir's SQLite file. */
interface TargetFlags {
  dataDir?: string;
  databaseUrl?: string;
}

/**
 * Opens the database `flags` name (DESIGN §9.1: `--database-url`, else VOXCTL_DATABASE_URL, else the data
 * dir), runs `fn` on it and closes it. Domain errors become CLI errors with the domain's exit code.
 */
async function withAdminDatabase<T>(flags: TargetFlags, ctx: AdminContext, fn: (db: Db, admin: AdminModule) => Promise<T>): Promise<T> {
  // Loaded lazily: the client commands should not pay for SQLite.
  const admin = await import('../../server/admin.js');
  const databaseUrl = flags.databaseUrl ?? (ctx.env.raw().VOXCTL_DATABASE_URL || undefined);
  if (databaseUrl !== undefined) {
    const problem = databaseUrlProblem(databaseUrl);
    if (problem) throw usageError(problem);
  }
  const dataDir = resolveDataDir(flags.dataDir, ctx.env.raw());
  if (!databaseUrl) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let db;
  try {
    db = await admin.openDatabase(databaseUrl ? { url: databaseUrl } : { file: join(dataDir, 'voxctl.db') });
  } catch (err) {
    // openDatabase masks the password; nothing else of the URL is secret.
    throw new CliError(`Cannot open the database: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  try {
    return await fn(db, admin);
  } catch (err) {
    if (err instanceof DomainError) throw new CliError(err.message, { cause: err, exitCode: EXIT_BY_ERROR_CODE[err.code], code: err.code });
    throw err;
  } finally {
    await db.close();
  }
}

/**
 * `voxctl admin users create`: for whoever hosts the service. Writes straight to the database of the data
 * dir (no server needed, same services as the API) and prints only the new key on stdout, for scripts.
 */
export async function createUserCommand(flags: CreateFlags, ctx: AdminContext): Promise<void> {
  const { validateNewUser } = await import('../../server/admin.js');
  try {
    validateNewUser(flags);
  } catch (err) {
    if (err instanceof DomainError) throw usageError(err.message, 'voxctl admin users create --email you@example.com [--tier pro]');
    throw err;
  }
  await withAdminDatabase(flags, ctx, async (db, admin) => {
    const { key } = await admin.createUserWithKey(db, { email: flags.email, name: flags.name, tier: flags.tier, now: new Date() });
    ctx.stdout.write(`${key.key}\n`);
  });
}

/** Column widths of a plain table: each column as wide as its widest cell. */
function plainTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}


function printUsers(ctx: AdminContext, users: AdminUser[], json: boolean, total?: number): void {
  if (json) {
    ctx.stdout.write(JSON.stringify(total === undefined ? users[0] : { items: users, total }) + '\n');
    return;
  }
  const rows = [['ID', 'EMAIL', 'NAME', 'TIER', 'SUBSCRIPTION', 'STATUS', 'CREATED']];
  for (const u of users) rows.push([u.id, u.email, u.name ?? '', u.subscription_tier, u.subscription_status, u.disabled ? `disabled ${u.disabled_at}` : 'active', u.created_at]);
  ctx.stdout.write(plainTable(rows));
}

/** `voxctl admin users list`: every account, oldest first (all of them; `--limit`/`--offset` to page). */
async function listUsersCommand(flags: TargetFlags & { json?: boolean; limit?: number; offset?: number }, ctx: AdminContext): Promise<void> {
  await withAdminDatabase(flags, ctx, async (db, admin) => {
    const page = await admin.listUsersForAdmin(db, { limit: flags.limit ?? Number.MAX_SAFE_INTEGER, offset: flags.offset ?? 0 });
    printUsers(ctx, page.items, flags.json === true, page.total);
  });
}

/** `voxctl admin users disable|enable USER`: the account's keys stop (or start again) authenticating. */
async function setDisabledCommand(user: string, disabled: boolean, flags: TargetFlags & { json?: boolean }, ctx: AdminContext): Promise<void> {
  await withAdminDatabase(flags, ctx, async (db, admin) => {
    printUsers(ctx, [await admin.setAccountDisabled(db, { user, disabled, now: new Date() })], flags.json === true);
  });
}

/** `voxctl admin keys revoke KEY_ID`: any user's key, at once, on every instance. */
async function revokeKeyCommand(keyId: string, flags: TargetFlags & { json?: boolean }, ctx: AdminContext): Promise<void> {
  await withAdminDatabase(flags, ctx, async (db, admin) => {
    const revoked = await admin.revokeKeyAsOperator(db, { keyId, now: new Date() });
    ctx.stdout.write(flags.json ? JSON.stringify(revoked) + '\n' : `Revoked ${revoked.id} (user ${revoked.user_id}) at ${revoked.revoked_at}\n`);
  });
}

const TARGET_HELP = {
  dataDir: 'data folder (default VOXCTL_DATA_DIR or the OS user data dir)',
  databaseUrl: 'the PostgreSQL of instances started with --database-url (default VOXCTL_DATABASE_URL)',
};

/** The flags every admin command takes: where the database is (`--json` is the program's own). */
function targetOptions(cmd: Command): Command {
  return cmd.option('--data-dir <dir>', TARGET_HELP.dataDir).option('--database-url <url>', TARGET_HELP.databaseUrl);
}

/** Registers `voxctl admin users create`. */
export function registerAdmin(program: Command, ctx: AdminContext = { env: createEnv(), stdout: process.stdout }): void {
  const admin = program.command('admin').description(describeCommand('admin'));
  const users = admin.command('users').description('Manage users of the service');
  users
    .command('create')
    .description('Create a user and print its first API key (only the key, on stdout)')
    .requiredOption('--email <email>', 'the user\'s email address')
    .option('--name <name>', 'display name')
    .addOption(new Option('--tier <tier>', 'subscription tier').default('free'))
    .option('--data-dir <dir>', TARGET_HELP.dataDir)
    .option('--database-url <url>', TARGET_HELP.databaseUrl)
    .addHelpText(
      'after',
      `\nTiers: ${TIERS.join(', ')}.\n\nExamples:\n  $ voxctl admin users create --email ada@example.com --name Ada --tier pro\n  $ KEY=$(voxctl admin users create --email ci@example.com --data-dir /srv/voxctl)\n  $ VOXCTL_DATABASE_URL=postgres://voxctl@db/voxctl voxctl admin users create --email team@example.com --tier pro`,
    )
    .action(async (flags: CreateFlags) => createUserCommand(flags, ctx));
  targetOptions(users.command('list').description('List every account, oldest first, and whether it is disabled'))
    .option('--limit <n>', 'at most this many', intOption('--limit', 1, 1_000_000))
    .option('--offset <n>', 'accounts to skip', intOption('--offset', 0, Number.MAX_SAFE_INTEGER))
    .addHelpText('after', '\nExamples:\n  $ voxctl admin users list\n  $ voxctl admin users list --json --database-url postgres://voxctl@db/voxctl')
    .action(async (_o, cmd: Command) => listUsersCommand(flagsOf(cmd), ctx));
  for (const [name, disabled, what] of [
    ['disable', true, 'Disable an account (by id or e-mail): its keys stop working until it is enabled; nothing is deleted'],
    ['enable', false, 'Enable a disabled account (by id or e-mail) again'],
  ] as const) {
    targetOptions(users.command(`${name} <user>`).description(what))
      .addHelpText('after', `\nExamples:\n  $ voxctl admin users ${name} ada@example.com\n  $ voxctl admin users ${name} usr_0123456789abcdef01234567 --json`)
      .action(async (user: string, _o, cmd: Command) => setDisabledCommand(user, disabled, flagsOf(cmd), ctx));
  }
  const keys = admin.command('keys').description("Manage any user's API keys");
  targetOptions(keys.command('revoke <key-id>').description('Revoke a key by id (key_…): it stops working at once, on every instance'))
    .addHelpText('after', '\nExamples:\n  $ voxctl admin keys revoke key_0123456789abcdef01234567')
    .action(async (keyId: string, _o, cmd: Command) => revokeKeyCommand(keyId, flagsOf(cmd), ctx));
  registerSchemaCommands(admin, ctx);
  registerBackupCommands(admin, ctx);
}
