// What `voxctl corpus upload` does on this machine before a byte is sent: tell a directory from an
// archive, list a directory's files (following symbolic links, as the tar made of it will), and stream
// that tar without a temporary copy.
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Stats } from 'node:fs';
import { usageError } from './errors.js';

/** What PATH names: a directory to pack, or an archive to send as is. */
export type UploadSource =
  | { kind: 'directory'; path: string }
  | { kind: 'archive'; path: string; size: number; contentType: string; filename: string };

/** The archive names the service takes (DESIGN §10.1) and the type each is sent as. */
const ARCHIVE_TYPES: readonly [RegExp, string][] = [
  [/\.zip$/i, 'application/zip'],
  [/\.(tar\.gz|tgz)$/i, 'application/gzip'],
  [/\.tar$/i, 'application/x-tar'],
];

/** Resolves PATH to a directory or an archive; anything else is a usage error (exit 2). */
export async function uploadSource(path: string): Promise<UploadSource> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw usageError(`No such file or directory: ${path}`);
    throw e;
  }
  if (st.isDirectory()) return { kind: 'directory', path };
  const type = ARCHIVE_TYPES.find(([re]) => re.test(path));
  if (!st.isFile() || !type) throw usageError(`${path} is not a directory nor a .zip, .tar, .tar.gz or .tgz archive`);
  return { kind: 'archive', path, size: st.size, contentType: type[1], filename: basename(path) };
}

/** A directory's regular files (relative, `/`-separated, sorted) and the size of the tar made of them. */
export interface DirectoryListing {
  files: string[];
  /** Bytes of the tar stream: a 512-byte header per file plus its content padded to 512, and the end marker. */
  tarBytes: number;
}

const TAR_BLOCK = 512;
const padded = (n: number) => Math.ceil(n / TAR_BLOCK) * TAR_BLOCK;

/**
 * Lists every regular file under `dir`, following symbolic links (what they point to is what the tar
 * carries); other entries (sockets, FIFOs) are left out. Directories already visited are not entered
 * again, so a link loop ends.
 */
export async function listDirectory(dir: string): Promise<DirectoryListing> {
  const files: string[] = [];
  let tarBytes = 2 * TAR_BLOCK;
  const seen = new Set<string>();
  async function walk(abs: string, rel: string): Promise<void> {
    const st = await stat(abs);
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    for (const name of (await readdir(abs)).sort()) {
      const childAbs = join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      const child = await stat(childAbs).catch(() => undefined);
      if (!child) continue; // a dangling link: nothing to send
      if (child.isDirectory()) await walk(childAbs, childRel);
      else if (child.isFile()) {
        files.push(childRel);
        // Long paths take a PAX header block and its data block on top.
        tarBytes += TAR_BLOCK + padded(child.size) + (Buffer.byteLength(childRel) > 99 ? 2 * TAR_BLOCK : 0);
      }
    }
  }
  await walk(dir, '');
  return { files, tarBytes };
}

/** The directory's `files` as an uncompressed tar, produced while it is read (no temporary copy). */
export async function tarOf(dir: string, files: readonly string[]): Promise<AsyncIterable<Uint8Array>> {
  const tar = await import('tar');
  // follow: a linked file is stored as the file it points to (the service refuses links in an archive).
  // A name starting with '@' would be read as "include this archive": say ./@name.
  const entries = files.map((f) => (f.startsWith('@') ? `./${f}` : f));
  return tar.create({ cwd: dir, portable: true, follow: true, noDirRecurse: true }, entries) as unknown as AsyncIterable<Uint8Array>;
}
