import { randomBytes } from 'node:crypto';
import { mkdir, open, opendir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createEarlySyncs } from './early-syncs.js';
import { assertBlobName, assertRange, isBlobName, BlobNotFoundError, type AudioBlobStore, type ByteRange } from './types.js';

/** Prefix of files being written; anything with it left in the folder is debris of a crash. */
export const TEMP_PREFIX = '.tmp-';

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** fsyncs a file (or a folder, so the names renamed into it survive a crash). */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const syncFolder = syncFile;

/** Files fsynced at once by `sync` (libuv's thread pool has four threads; an upload's extraction writes on them). */
const SYNCS_AT_ONCE = 2;

/** A batch's files fsynced at once while the batch is still being written (see early-syncs.ts). */
const EARLY_SYNCS_AT_ONCE = 1;

/**
 * Audio blobs as files in one folder (`{dataDir}/audio`, the single-instance default). A blob is written
 * to a temp file, fsynced and renamed into place; a reader holds its file open, so a replacement or
 * delete while it streams does not cut its bytes short.
 * A batch (`durable: false`) of new names is written in place now, and fsynced file by file (each fsync
 * started as its file is written) with one fsync of the folder by `sync`: until then a crash may lose or
 * cut it, and nothing committed names it yet.
 */
export function createFilesystemBlobStore(dir: string): AudioBlobStore {
  const pathOf = (name: string): string => {
    assertBlobName(name);
    return join(dir, name);
  };
  // The folder is made by the first write (and again if it was removed since), not before every one.
  const create = async (path: string): Promise<FileHandle> => {
    try {
      return await open(path, 'w', 0o600);
    } catch (err) {
      if (!isMissing(err)) throw err;
      await mkdir(dir, { recursive: true });
      return open(path, 'w', 0o600);
    }
  };
  const early = createEarlySyncs(syncFile, EARLY_SYNCS_AT_ONCE);

  const store: AudioBlobStore = {
    async put(name, bytes, options) {
      const target = pathOf(name);
      const durable = options?.durable ?? true;
      // A batch writes new names nothing reads before `sync`: in place, without a temp file to rename.
      const temp = durable ? join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}-${name}`) : target;
      const handle = await create(temp);
      try {
        await handle.writeFile(bytes);
        if (durable) await handle.sync();
      } catch (err) {
        await handle.close();
        await rm(temp, { force: true });
        throw err;
      }
      await handle.close();
      if (temp === target) {
        early.schedule(target);
        return;
      }
      try {
        await rename(temp, target);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
    },

    async putFile(name, path, options) {
      const target = pathOf(name);
      const durable = options?.durable ?? true;
      if (durable) await syncFile(path);
      try {
        await rename(path, target);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && (await stat(path).then(() => true, () => false))) {
          await mkdir(dir, { recursive: true });
          await rename(path, target);
        } else if (code === 'EXDEV') {
          // Another filesystem: copied as bytes, the temp file renamed into place as `put` does.
          await store.put(name, await readFile(path), options);
          await rm(path, { force: true });
          return;
        } else throw err;
      }
      if (durable) await syncFolder(dir);
      else early.schedule(target);
    },

    async sync(names) {
      const queue = names.map(pathOf);
      const worker = async () => {
        for (let path = queue.pop(); path !== undefined; path = queue.pop()) await (early.take(path) ?? syncFile(path));
      };
      await Promise.all(Array.from({ length: SYNCS_AT_ONCE }, worker));
      if (names.length > 0) await syncFolder(dir);
    },

    async size(name) {
      try {
        const info = await stat(pathOf(name));
        return info.isFile() ? info.size : undefined;
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },

    async open(name, range?: ByteRange): Promise<Readable> {
      let handle: FileHandle;
      try {
        handle = await open(pathOf(name), 'r');
      } catch (err) {
        if (isMissing(err)) throw new BlobNotFoundError(name);
        throw err;
      }
      try {
        if (range) assertRange(range, (await handle.stat()).size);
      } catch (err) {
        await handle.close();
        throw err;
      }
      // The stream closes the handle when it ends or is destroyed.
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    },

    async delete(name) {
      const path = pathOf(name);
      early.forget(path);
      await rm(path, { force: true });
    },

    async sweepDebris() {
      let removed = 0;
      let entries;
      try {
        entries = await opendir(dir);
      } catch (err) {
        if (isMissing(err)) return 0;
        throw err;
      }
      for await (const entry of entries) {
        if (!entry.name.startsWith(TEMP_PREFIX)) continue;
        await rm(join(dir, entry.name), { force: true });
        removed++;
      }
      return removed;
    },

    async *listOlderThan(cutoff) {
      let entries;
      try {
        entries = await opendir(dir);
      } catch (err) {
        if (isMissing(err)) return;
        throw err;
      }
      for await (const entry of entries) {
        // Temp debris (leading dot) and stray files are not blobs; start-up recovery deals with debris.
        if (!entry.isFile() || !isBlobName(entry.name)) continue;
        try {
          if ((await stat(join(dir, entry.name))).mtime < cutoff) yield entry.name;
        } catch (err) {
          if (!isMissing(err)) throw err;
        }
      }
    },
  };
  return store;
}
