/**
 * Paths inside a corpus archive, as both sides see them: relative, `/`-separated, no `.` segments. The
 * server lists what it extracted, the CLI what a directory holds; both hand the list to `parseCorpus`.
 */
import { posix } from 'node:path';

/** A path as the layout rules compare it (`./a//b` → `a/b`); undefined when it is empty or climbs out. */
export function normalizeArchivePath(path: string): string | undefined {
  const p = posix.normalize(path.replace(/\\/g, '/')).replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  if (p === '' || p === '.' || p.startsWith('/') || p === '..' || p.startsWith('../')) return undefined;
  return p;
}

/** Entries an archiver adds beside the content (macOS resource forks and Finder files): not part of a corpus. */
export function isArchiverDebris(path: string): boolean {
  return path === '__MACOSX' || path.startsWith('__MACOSX/') || posix.basename(path) === '.DS_Store';
}

/**
 * The folder every path is in, with its slash (`LibriSpeech/`), or `''`: one common top folder is
 * ignored (DESIGN §10.1), so an archive of `my-corpus/` reads like the folder's content.
 */
export function commonTopFolder(paths: readonly string[]): string {
  let top: string | undefined;
  for (const p of paths) {
    const slash = p.indexOf('/');
    if (slash < 0) return '';
    const first = p.slice(0, slash);
    if (top === undefined) top = first;
    else if (top !== first) return '';
  }
  return top === undefined ? '' : `${top}/`;
}

/** The folder of a path, `''` at the top. */
export function dirOf(path: string): string {
  const d = posix.dirname(path);
  return d === '.' ? '' : d;
}

/** `dir` and a relative path joined and normalised; undefined when the result leaves the archive. */
export function joinInside(dir: string, rel: string): string | undefined {
  if (rel === '' || rel.startsWith('/')) return undefined;
  return normalizeArchivePath(dir === '' ? rel : `${dir}/${rel}`);
}

/** A path without its last extension (`clips/a.mp3` → `clips/a`). */
export function withoutExtension(path: string): string {
  const ext = posix.extname(path);
  return ext ? path.slice(0, -ext.length) : path;
}
