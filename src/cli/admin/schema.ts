import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../core/commander.js';
import { resolveDataDir } from '../../shared/paths.js';
import { databaseUrlProblem } from '../../shared/database-url.js';
import { CliError, usageError } from '../core/errors.js';
import { flagsOf } from '../core/util.js';
import type { AdminContext } from './context.js';

interface TargetFlags {
  dataDir?: string;
  databaseUrl?: string;
  json?: boolean;
}

type Target = { file: string } | { url: string };

/** The database the flags name: `--database-url` (or VOXCTL_DATABASE_URL), else the data dir's SQLite file. */
function targetOf(flags: TargetFlags, ctx: AdminContext): Target {
  const env = ctx.env.raw();
  if (flags.databaseUrl !== undefined && flags.dataDir !== undefined) throw usageError('Give --database-url or --data-dir, not both');
  const url = flags.databaseUrl ?? (flags.dataDir === undefined ? env.VOXCTL_DATABASE_URL || undefined : undefined);
  if (url !== undefined) {
    const problem = databaseUrlProblem(url);
    if (problem) throw usageError(problem);
    return { url };
  }
  return { file: join(resolveDataDir(flags.dataDir, env), 'voxctl.db') };
}

// A changed migration is said as DESIGN §14.1 words it; anything else names what could not be opened.
function cliErrorOf(err: unknown): CliError {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Error && err.name === 'MigrationChangedError') return new CliError(message, { cause: err, code: 'migration_changed' });
  return new CliError(`Cannot open the database: ${message}`, { cause: err });
}

/** `voxctl admin schema`: applied migrations (with their checksum's state) and pending ones. */
export async function schemaCommand(flags: TargetFlags, ctx: AdminContext): Promise<void> {
  const target = targetOf(flags, ctx);
  const { inspectDatabaseSchema } = await import('../../server/admin.js');
  const status = await inspectDatabaseSchema(target).catch((err: unknown) => {
    throw cliErrorOf(err);
  });
  if (flags.json) {
    ctx.stdout.write(JSON.stringify(status, null, 2) + '\n');
    return;
  }
  const rows = [
    ['VERSION', 'NAME', 'APPLIED_AT', 'CHECKSUM'],
    ...status.applied.map((m) => [String(m.version), m.name, m.applied_at ?? '-', m.checksum]),
    ...status.pending.map((m) => [String(m.version), m.name, 'pending', '-']),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  ctx.stdout.write(rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n') + '\n');
}

/** `voxctl admin migrate`: applies the pending migrations without starting a server. */
export async function migrateCommand(flags: TargetFlags, ctx: AdminContext): Promise<void> {
  const target = targetOf(flags, ctx);
  if ('file' in target) mkdirSync(join(target.file, '..'), { recursive: true, mode: 0o700 });
  const { inspectDatabaseSchema, migrateDatabase } = await import('../../server/admin.js');
  const { before, after } = await inspectDatabaseSchema(target)
    .then(async (before) => ({ before, after: await migrateDatabase(target) }))
    .catch((err: unknown) => {
      throw cliErrorOf(err);
    });
  const applied = after.applied.filter((m) => before.pending.some((p) => p.version === m.version));
  if (flags.json) {
    ctx.stdout.write(JSON.stringify({ applied: applied.map(({ version, name }) => ({ version, name })), schema: after }, null, 2) + '\n');
    return;
  }
  const version = Math.max(0, ...after.applied.map((m) => m.version));
  for (const m of applied) ctx.stdout.write(`Applied migration ${m.version} (${m.name})\n`);
  ctx.stdout.write(applied.length ? `Schema is at version ${version}\n` : `Nothing to apply: schema is at version ${version}\n`);
}

/** Registers `voxctl admin schema` and `voxctl admin migrate` (DESIGN §14.1). */
export function registerSchemaCommands(admin: Command, ctx: AdminContext): void {
  const target = (cmd: Command) =>
    cmd
      .option('--data-dir <dir>', 'data folder of a SQLite service (default VOXCTL_DATA_DIR or the OS user data dir)')
      .option('--database-url <url>', 'the PostgreSQL of instances started with --database-url (default VOXCTL_DATABASE_URL)');
  target(admin.command('schema').description('Show applied migrations (checksum ok or changed) and pending ones'))
    .addHelpText('after', '\nExamples:\n  $ voxctl admin schema --data-dir /srv/voxctl\n  $ VOXCTL_DATABASE_URL=postgres://voxctl@db/voxctl voxctl admin schema --json')
    .action(async (_opts: TargetFlags, cmd: Command) => schemaCommand(flagsOf<TargetFlags>(cmd), ctx));
  target(admin.command('migrate').description('Apply pending migrations without starting a server (before the old instances stop)'))
    .addHelpText('after', '\nExamples:\n  $ voxctl admin migrate --data-dir /srv/voxctl\n  $ VOXCTL_DATABASE_URL=postgres://voxctl@db/voxctl voxctl admin migrate')
    .action(async (_opts: TargetFlags, cmd: Command) => migrateCommand(flagsOf<TargetFlags>(cmd), ctx));
}
