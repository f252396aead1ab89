/**
 * eSpeak NG's data package (espeak-ng.data: 459 files laid end to end) in memory that every TTS worker
 * shares, read from disk a file at a time as eSpeak first opens it. The language dictionaries are 23.3 of
 * its 24 MB and a workload uses few languages (English needs 0.2 MB of them), so most of the package is
 * never read: its pages stay untouched zero pages, which cost no resident memory.
 *
 * The package's bytes sit at their file offsets, so filling a range is one positioned read. Which 64 KiB
 * pages are filled is kept in shared flags; two workers filling the same page at once write the same bytes.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Granularity of filling. */
const PAGE = 64 * 1024;

/** The package as workers share it: where it is on disk, its bytes (filled on demand), which pages are filled. */
export interface EspeakPackage {
  path: string;
  bytes: SharedArrayBuffer;
  /** One Int32 per page: 1 once the page holds the file's bytes. */
  filled: SharedArrayBuffer;
}

/** Where the installed espeak-ng.data is. */
export function espeakDataPath(): string {
  const script = createRequire(import.meta.url).resolve('@echogarden/espeak-ng-emscripten');
  return join(dirname(script), 'espeak-ng.data');
}

/** Allocates shared memory the size of the package; reads nothing yet. */
export async function openEspeakPackage(path: string = espeakDataPath()): Promise<EspeakPackage> {
  const { size } = await stat(path);
  return { path, bytes: new SharedArrayBuffer(size), filled: new SharedArrayBuffer(4 * Math.ceil(size / PAGE)) };
}

/** Makes bytes [start, end) of the package hold the file's bytes (synchronous: a worker thread calls it). */
export function fillPackage(pkg: EspeakPackage, start: number, end: number): void {
  const flags = new Int32Array(pkg.filled);
  const last = Math.min(Math.ceil(end / PAGE), flags.length);
  let fd: number | undefined;
  try {
    for (let page = Math.floor(start / PAGE); page < last; ) {
      if (Atomics.load(flags, page) === 1) {
        page++;
        continue;
      }
      let stop = page + 1; // one read for a run of pages not yet filled
      while (stop < last && Atomics.load(flags, stop) !== 1) stop++;
      const from = page * PAGE;
      const to = Math.min(stop * PAGE, pkg.bytes.byteLength);
      fd ??= openSync(pkg.path, 'r');
      for (let at = from; at < to; ) {
        const n = readSync(fd, new Uint8Array(pkg.bytes, at, to - at), 0, to - at, at);
        if (n === 0) throw new Error(`${pkg.path} ended early at byte ${at}`);
        at += n;
      }
      for (let p = page; p < stop; p++) Atomics.store(flags, p, 1);
      page = stop;
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
