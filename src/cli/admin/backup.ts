import { resolve } from 'node:path';
import type { Command } from '../core/commander.js';
import { resolveDataDir } from '../../shared/paths.js';
import { CliError } from '../core/errors.js';
import { flagsOf } from '../core/util.js';
import type { AdminContext } from './context.js';

interface BackupFlags {
  dataDir?: string;
  json?: boolean;
}

/** What an archive holds, said in one line. */
const contents = (s: { audioFiles: number; journal: boolean; secret: boolean }): string =>
  ['the database', `${s.audioFiles} audio file${s.audioFiles === 1 ? '' : 's'}`, ...(s.secret ? ['the secret'] : []), ...(s.journal ? ['the request journal'] : [])].join(', ');

/** A failure of the backup module said plainly (exit 1): a non-empty target, a missing file, not an archive. */
function cliErrorOf(err: unknown): CliError {
  if (err instanceof Error && err.name === 'BackupError') return new CliError(err.message, { cause: err });
  throw err;
}

/** `voxctl admin backup --data-dir D FILE`: one consistent archive of a SQLite service, running or not (DESIGN §14.18). */
export async function backupCommand(file: string, flags: BackupFlags, ctx: AdminContext): Promise<void> {
  const dataDir = resolveDataDir(flags.dataDir, ctx.env.raw());
  const { backupDataDir } = await import('../../server/admin.js');
  const summary = await backupDataDir({ dataDir, file: resolve(file) }).catch((err: unknown) => {
    throw cliErrorOf(err);
  });
  if (flags.json) ctx.stdout.write(JSON.stringify({ file: resolve(file), data_dir: dataDir, audio_files: summary.audioFiles, secret: summary.secret, journal: summary.journal, bytes: summary.bytes }) + '\n');
  else ctx.stdout.write(`Backed up ${dataDir} to ${file} (${summary.bytes} bytes): ${contents(summary)}\n`);
}

/** `voxctl admin restore FILE --data-dir D`: unpacks a backup into a new or empty data dir (else exit 1). */
export async function restoreCommand(file: string, flags: BackupFlags, ctx: AdminContext): Promise<void> {
  const dataDir = resolveDataDir(flags.dataDir, ctx.env.raw());
  const { restoreDataDir } = await import('../../server/admin.js');
  const summary = await restoreDataDir({ file: resolve(file), dataDir }).catch((err: unknown) => {
    throw cliErrorOf(err);
  });
  if (flags.json) ctx.stdout.write(JSON.stringify({ file: resolve(file), data_dir: dataDir, audio_files: summary.audioFiles, secret: summary.secret, journal: summary.journal }) + '\n');
  else ctx.stdout.write(`Restored ${file} into ${dataDir}: ${contents(summary)}\n`);
}

/** Registers `voxctl admin backup` and `voxctl admin restore` (SQLite data dirs; PostgreSQL: pg_dump, docs/deploy.md). */
export function registerBackupCommands(admin: Command, ctx: AdminContext): void {
  const dataDir = 'data folder of the SQLite service (default VOXCTL_DATA_DIR or the OS user data dir)';
  admin
    .command('backup <file>')
    .description('Write one consistent archive (tar) of a SQLite service, also while it runs: database, audio, secret, request journal')
    .option('--data-dir <dir>', dataDir)
    .addHelpText('after', '\nFor PostgreSQL, use pg_dump and back up the audio store (docs/deploy.md, "Backups and restore").\n\nExamples:\n  $ voxctl admin backup --data-dir /var/lib/voxctl voxctl-backup.tar')
    .action(async (file: string, _o, cmd: Command) => backupCommand(file, flagsOf<BackupFlags>(cmd), ctx));
  admin
    .command('restore <file>')
    .description('Unpack an archive of `admin backup` into a new or empty data dir')
    .option('--data-dir <dir>', dataDir)
    .addHelpText('after', '\nExamples:\n  $ voxctl admin restore voxctl-backup.tar --data-dir /var/lib/voxctl-restored')
    .action(async (file: string, _o, cmd: Command) => restoreCommand(file, flagsOf<BackupFlags>(cmd), ctx));
}
