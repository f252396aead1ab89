import type { Readable } from 'node:stream';

/** An inclusive byte range, as an HTTP `Range: bytes=start-end` names it. */
export interface ByteRange {
  start: number;
  end: number;
}

/** How `put` writes: `durable: false` leaves making the blob durable to a later `sync` of a batch. */
export interface PutOptions {
  durable?: boolean;
}

/**
 * Where audio bytes live (DESIGN §9.2): `{dataDir}/audio` for one instance, a table of chunks in the
 * shared database, or an S3-compatible bucket. Names are the relative paths the audio rows record
 * (`aud_….wav`). A blob is written whole: a reader sees the previous bytes or the new ones, never a part.
 */
export interface AudioBlobStore {
  /**
   * Stores `bytes` under `name`, replacing any blob of that name; atomic for readers, and durable once it
   * resolves. `durable: false` is for a new name nothing reads until `sync` has named it: only then is it
   * durable, and it may be written in place (stores without `sync` are always durable and atomic).
   */
  put(name: string, bytes: Uint8Array, options?: PutOptions): Promise<void>;
  /**
   * Stores the file at `path` under `name` as `put` would store its bytes, taking the file (it is gone
   * afterwards): a store on the same filesystem renames it instead of copying. Stores without it: `put`.
   */
  putFile?(name: string, path: string, options?: PutOptions): Promise<void>;
  /**
   * Makes blobs written with `durable: false` durable together (a corpus's thousand files: one batch of
   * flushes instead of one wait per file). Whatever a commit will point at is synced before it.
   */
  sync?(names: readonly string[]): Promise<void>;
  /** The blob's size in bytes, or undefined when there is none. */
  size(name: string): Promise<number | undefined>;
  /**
   * Streams the blob, or only `range` of it (which must lie within the blob, else a RangeError).
   * Rejects with BlobNotFoundError when there is no such blob.
   */
  open(name: string, range?: ByteRange): Promise<Readable>;
  /** Removes the blob; removing a missing blob is not an error. */
  delete(name: string): Promise<void>;
  /** Names of blobs stored before `cutoff`, for the clean-up of blobs no audio row records. */
  listOlderThan(cutoff: Date): AsyncIterable<string>;
  /**
   * Frees the space of versions replaced or deleted before `cutoff` (stores that keep them a while for
   * streams already reading them); resolves to how many. Stores that free at once have none.
   */
  collectRetired?(cutoff: Date): Promise<number>;
  /** Removes what a crash left half-written (stores whose writes are not atomic by themselves); how many. */
  sweepDebris?(): Promise<number>;
}

/** `open` of a blob that does not exist. */
export class BlobNotFoundError extends Error {
  readonly code = 'ENOENT';
  constructor(readonly blobName: string) {
    super(`No audio blob named ${blobName}`);
    this.name = 'BlobNotFoundError';
  }
}

// A name is one path segment that cannot climb out of a folder or collide with temp debris (leading dot).
const BLOB_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;

/** True when `name` is a plain file name a store accepts. */
export const isBlobName = (name: string): boolean => BLOB_NAME.test(name);

/** Refuses a name that is not a plain file name (the stores put names into paths and object keys). */
export function assertBlobName(name: string): void {
  if (!isBlobName(name)) throw new Error(`Invalid audio blob name: ${JSON.stringify(name)}`);
}

/** Refuses a range that is not within a blob of `size` bytes. */
export function assertRange(range: ByteRange, size: number): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start > end || end >= size) {
    throw new RangeError(`Byte range ${start}-${end} is outside a blob of ${size} bytes`);
  }
}
