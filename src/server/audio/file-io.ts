/**
 * How the decoders read a file. On the event loop every read goes through libuv's threads, so the loop
 * never blocks on a disk; on a decoding worker thread (decode-worker.ts) waiting is the thread's job, and
 * for a short file the hop to libuv's threads and back per open, read and close costs more than the read.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';

/** A file open for reading. */
export interface OpenFile {
  size(): Promise<number>;
  /** Reads up to `length` bytes at `position` into the start of `buffer`; resolves to how many came. */
  read(buffer: Uint8Array, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

/** Opens and reads files. */
export interface FileIo {
  open(path: string): Promise<OpenFile>;
  readFile(path: string): Promise<Buffer>;
}

/** Reads on libuv's threads: what the event loop uses. */
export const threadPoolIo: FileIo = {
  async open(path) {
    const fh = await open(path, 'r');
    return {
      size: async () => (await fh.stat()).size,
      read: async (buffer, length, position) => (await fh.read(buffer, 0, length, position)).bytesRead,
      close: () => fh.close(),
    };
  },
  readFile: (path) => readFile(path),
};

/** Reads on the calling thread: only for a worker thread that exists to wait for its file. */
export const blockingIo: FileIo = {
  async open(path) {
    const fd = openSync(path, 'r');
    return {
      size: async () => fstatSync(fd).size,
      read: async (buffer, length, position) => readSync(fd, buffer, 0, length, position),
      close: async () => closeSync(fd),
    };
  },
  readFile: async (path) => readFileSync(path),
};
