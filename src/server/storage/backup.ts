/**
 * Backup and restore of a SQLite data dir (DESIGN §14.18): one tar archive holding a consistent copy of
 * the database (SQLite's online backup, taken while the service runs), the request journal, the secret
 * and the audio files that copy references — never server.json, serve.log or anything else of the dir.
 * Audio is written before the row that records it, so every file the snapshot names exists (but those
 * the audio retention deleted since, `stageAudio`); files written after the snapshot belong to rows it
 * does not have and are left out.
 */
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import * as tar from 'tar';
import { loadSqliteDriver } from './sqlite-driver.js';
import { isBlobName } from './blobs/types.js';

/** The names in an archive, as in the data dir. */
export const BACKUP_ENTRIES = { database: 'voxctl.db', journal: 'requests.journal', secret: 'secret', audio: 'audio' } as const;

/** Raised when a backup or restore cannot be done as asked (the CLI says it and exits 1). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** What an archive holds. */
export interface BackupSummary {
  audioFiles: number;
  journal: boolean;
  secret: boolean;
  /** Size of the archive in bytes. */
  bytes: number;
}

/** Writes the archive of `dataDir` to `file` (through a temp file beside it, renamed when complete). */
export async function backupDataDir(opts: { dataDir: string; file: string }): Promise<BackupSummary> {
  const database = join(opts.dataDir, BACKUP_ENTRIES.database);
  if (!existsSync(database)) throw new BackupError(`No voxctl database in ${opts.dataDir} (${BACKUP_ENTRIES.database})`);
  // Staged under the data dir's own tmp/, on its file system: the audio files are hard links, not copies.
  const staging = join(opts.dataDir, 'tmp', `backup-${randomBytes(6).toString('hex')}`);
  mkdirSync(join(staging, BACKUP_ENTRIES.audio), { recursive: true, mode: 0o700 });
  const partial = `${opts.file}.partial-${randomBytes(4).toString('hex')}`;
  try {
    const Driver = loadSqliteDriver();
    const source = new Driver(database, { fileMustExist: true });
    try {
      source.pragma('busy_timeout = 5000');
      await source.backup(join(staging, BACKUP_ENTRIES.database));
    } finally {
      source.close();
    }
    const names = stageAudio(opts.dataDir, staging, Driver);
    const entries: string[] = [BACKUP_ENTRIES.database, BACKUP_ENTRIES.audio];
    for (const name of [BACKUP_ENTRIES.journal, BACKUP_ENTRIES.secret]) {
      if (existsSync(join(opts.dataDir, name))) {
        copyFileSync(join(opts.dataDir, name), join(staging, name));
        entries.push(name);
      }
    }
    await tar.create({ file: partial, cwd: staging, portable: true }, entries);
    chmodSync(partial, 0o600);
    renameSync(partial, opts.file);
    return { audioFiles: names.length, journal: entries.includes(BACKUP_ENTRIES.journal), secret: entries.includes(BACKUP_ENTRIES.secret), bytes: statSync(opts.file).size };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}

/** Unpacks an archive of `backupDataDir` into `dataDir`, which must be absent or empty. */
export async function restoreDataDir(opts: { file: string; dataDir: string }): Promise<BackupSummary> {
  if (!existsSync(opts.file)) throw new BackupError(`No such file: ${opts.file}`);
  if (existsSync(opts.dataDir) && readdirSync(opts.dataDir).length > 0) {
    throw new BackupError(`Not restored: ${opts.dataDir} is not empty (restore into a new or empty data dir)`);
  }
  const created = !existsSync(opts.dataDir);
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  try {
    const allowed = new Set<string>(Object.values(BACKUP_ENTRIES));
    await tar.extract({
      file: opts.file,
      cwd: opts.dataDir,
      strict: true,
      // Only what a backup holds, as plain files and the audio folder: nothing else of an archive lands in the dir.
      filter: (path, entry) => {
        const [top, name, ...rest] = path.replace(/\/$/, '').split('/');
        if (!allowed.has(top!) || rest.length > 0) return false;
        if (top === BACKUP_ENTRIES.audio) return name === undefined ? 'type' in entry && entry.type === 'Directory' : isBlobName(name) && 'type' in entry && entry.type === 'File';
        return name === undefined && 'type' in entry && entry.type === 'File';
      },
    });
    if (!existsSync(join(opts.dataDir, BACKUP_ENTRIES.database))) throw new BackupError(`${opts.file} is not a voxctl backup (no ${BACKUP_ENTRIES.database} in it)`);
    const audioDir = join(opts.dataDir, BACKUP_ENTRIES.audio);
    mkdirSync(audioDir, { recursive: true, mode: 0o700 });
    chmodSync(opts.dataDir, 0o700);
    chmodSync(audioDir, 0o700);
    const audio = readdirSync(audioDir);
    for (const name of audio) chmodSync(join(audioDir, name), 0o600);
    for (const name of [BACKUP_ENTRIES.database, BACKUP_ENTRIES.journal, BACKUP_ENTRIES.secret]) if (existsSync(join(opts.dataDir, name))) chmodSync(join(opts.dataDir, name), 0o600);
    return {
      audioFiles: audio.length,
      journal: existsSync(join(opts.dataDir, BACKUP_ENTRIES.journal)),
      secret: existsSync(join(opts.dataDir, BACKUP_ENTRIES.secret)),
      bytes: statSync(opts.file).size,
    };
  } catch (err) {
    // Leave nothing half-restored behind: the folder is emptied (and removed if this made it).
    if (created) rmSync(opts.dataDir, { recursive: true, force: true });
    else for (const entry of readdirSync(opts.dataDir)) rmSync(join(opts.dataDir, entry), { recursive: true, force: true });
    throw err;
  }
}

/**
 * Stages the audio files the database copy in `staging` references (`audio.path` of rows the audio
 * retention has not expired) and returns their names. The retention marks a row expired before it
 * deletes the file, so a file gone since the copy was taken belongs to a row the live database now says
 * is expired: it is left out, and its row marked so in the copy too. Any other missing file is an error.
 */
export function stageAudio(dataDir: string, staging: string, Driver: ReturnType<typeof loadSqliteDriver>): string[] {
  const copy = new Driver(join(staging, BACKUP_ENTRIES.database), { fileMustExist: true });
  let live: InstanceType<typeof Driver> | undefined;
  try {
    // A data dir of a release before the retention has no `expired_at`.
    const retention = (copy.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('audio') as string[]).includes('expired_at');
    const sql = retention ? 'SELECT path FROM audio WHERE expired_at IS NULL ORDER BY path' : 'SELECT path FROM audio ORDER BY path';
    const staged: string[] = [];
    for (const name of (copy.prepare(sql).pluck().all() as string[]).filter((n) => isBlobName(n))) {
      const from = join(dataDir, BACKUP_ENTRIES.audio, name);
      if (stage(from, join(staging, BACKUP_ENTRIES.audio, name))) {
        staged.push(name);
        continue;
      }
      live ??= new Driver(join(dataDir, BACKUP_ENTRIES.database), { readonly: true, fileMustExist: true });
      const expiredAt = retention ? (live.prepare('SELECT expired_at FROM audio WHERE path = ?').pluck().get(name) as string | null | undefined) : undefined;
      if (!expiredAt) throw new BackupError(`An audio file the database references is missing: ${from}`);
      copy.prepare('UPDATE audio SET expired_at = ? WHERE path = ?').run(expiredAt, name);
    }
    return staged;
  } finally {
    copy.close();
    live?.close();
  }
}

/** Puts a data dir file into the staging folder (a hard link, else a copy: another file system); false when it is missing. */
function stage(from: string, to: string): boolean {
  try {
    linkSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    copyFileSync(from, to);
  }
  return true;
}
