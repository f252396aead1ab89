/**
 * Extracts an uploaded corpus archive (zip with yauzl; tar or gzip'd tar with node-tar's parser) into a
 * folder, refusing everything but regular files and directories (DESIGN §10.3). Nothing is trusted from
 * the archive's own bookkeeping: entries are counted and bytes measured as they are written, so a bomb
 * stops at the limit instead of filling the disk. Links are never created, so no write can leave `dest`.
 */
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createGunzip } from 'node:zlib';
import type yauzl from 'yauzl';
import type { ReadEntry } from 'tar';
import { CORPUS_LIMITS } from '../../../shared/constants.js';
import { CORPUS_MESSAGES, normalizeArchivePath } from '../../../shared/corpus/index.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';

/** How far an archive may go (DESIGN §10.3); tests lower them. */
export interface ExtractLimits {
  maxEntries: number;
  maxExpandedBytes: number;
}

/** DESIGN's limits. */
export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = { maxEntries: CORPUS_LIMITS.entries, maxExpandedBytes: CORPUS_LIMITS.expandedBytes };

export type ArchiveKind = 'zip' | 'tar' | 'tgz';

const notAnArchive = () => validationFailed(CORPUS_MESSAGES.notAnArchive);
const unsafe = (path: string) => validationFailed(CORPUS_MESSAGES.unsafePath(path));
const corruptEntry = (path: string) => validationFailed(CORPUS_MESSAGES.corruptEntry(path));

/** True when the 512-byte block is a tar header: `ustar` magic, or a v7 header whose checksum adds up. */
function isTarHeader(block: Buffer): boolean {
  if (block.length < 512) return false;
  if (block.toString('latin1', 257, 262) === 'ustar') return true;
  const stored = parseInt(block.toString('latin1', 148, 156).replace(/[\0 ]+$/, '').trim(), 8);
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  return sum === stored && block[0] !== 0;
}

/** Bytes of an archive's head that tell its kind (a tar header is one 512-byte block). */
export const SNIFF_BYTES = 512;

/** The archive's kind from its first bytes (up to `SNIFF_BYTES` of them), or undefined. */
export function archiveKindOf(head: Buffer): ArchiveKind | undefined {
  const b = head.subarray(0, SNIFF_BYTES);
  if (b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && [0x0304, 0x0506, 0x0708].includes(b.readUInt16BE(2))) return 'zip';
  if (b.length >= 3 && b[0] === 0x1f && b[1] === 0x8b && b[2] === 0x08) return 'tgz';
  if (isTarHeader(b)) return 'tar';
  return undefined;
}

/** The archive's kind from its first bytes (never its name), or undefined. */
export async function sniffArchive(path: string): Promise<ArchiveKind | undefined> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(head, 0, SNIFF_BYTES, 0);
    return archiveKindOf(head.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/**
 * The archive path of an entry as it will be written, or the "Unsafe path" error: absolute (`/x`, `C:x`),
 * climbing (`..` as a segment, with either slash) or holding a NUL. Undefined for the archive's own root.
 */
export function safeEntryPath(raw: string): string | undefined {
  const slashed = raw.replace(/\\/g, '/');
  if (raw.includes('\0') || slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed) || slashed.split('/').includes('..')) throw unsafe(raw);
  if (/^(\.\/?)*$/.test(slashed)) return undefined;
  const normal = normalizeArchivePath(slashed);
  if (normal === undefined) throw unsafe(raw);
  return normal;
}

/** Counts entries and written bytes against the limits (the first breach is the error), and makes folders. */
class Budget {
  entries = 0;
  bytes = 0;
  /** Folders this extraction made: a thousand files in one folder need one mkdir, not a thousand. */
  private readonly folders = new Set<string>();
  constructor(private readonly limits: ExtractLimits) {}

  /** Makes `path` (and its parents) unless this extraction already did; a folder made stays one. */
  async folder(path: string): Promise<void> {
    if (this.folders.has(path)) return;
    await mkdir(path, { recursive: true });
    this.folders.add(path);
  }

  entry(): void {
    if (++this.entries > this.limits.maxEntries) throw validationFailed(CORPUS_MESSAGES.tooManyEntries);
  }

  /** Adds `n` written bytes to the expanded size; past the limit, the error. */
  add(n: number): void {
    this.bytes += n;
    if (this.bytes > this.limits.maxExpandedBytes) throw validationFailed(CORPUS_MESSAGES.expandsTooMuch);
  }

  /** A pass-through that adds every chunk to the expanded size and fails the stream past the limit. */
  meter(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        try {
          this.add(chunk.length);
          done(null, chunk);
        } catch (err) {
          done(err as Error);
        }
      },
    });
  }
}

/**
 * A pass-through that checks the CRC-32 of the bytes it passed against `expected` once they end: a zip
 * entry's own checksum, so a damaged entry of the declared size is refused, not stored (DESIGN §17.3).
 */
function crcCheck(expected: number, raw: string): Transform {
  let crc = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      crc = crc32(chunk, crc);
      done(null, chunk);
    },
    flush(done) {
      done(crc >>> 0 === expected >>> 0 ? null : corruptEntry(raw));
    },
  });
}

/**
 * What a failed write of entry `raw` throws: the budget's errors and the caller's abort as they are,
 * `Corrupt archive entry` when the entry's own bytes failed, `Unsafe path` when its path collides with a
 * folder or file; anything else (the disk) unchanged.
 */
function entryWriteError(err: unknown, raw: string, sourceFailed: boolean, signal?: AbortSignal): unknown {
  if (err instanceof DomainError) return err;
  if (signal?.aborted) return signal.reason;
  if (sourceFailed) return corruptEntry(raw);
  const code = (err as { code?: string }).code;
  if (code && ['ENOTDIR', 'EISDIR', 'EEXIST', 'ENAMETOOLONG', 'EINVAL'].includes(code)) return unsafe(raw);
  return err;
}

/**
 * Writes one entry's bytes under `dest`; a path that collides with a folder or file is unsafe too. `open`
 * gives the entry's body only once its folder exists, and the body is piped at once: an error the source
 * emits (yauzl's size check fires as soon as the data passes its declared size) always has a listener.
 * Anything the source itself fails with (size mismatch, damaged compressed data, truncation) is
 * `Corrupt archive entry`; the budget's own errors pass through.
 */
async function writeEntry(
  dest: string,
  path: string,
  raw: string,
  open: () => Readable | AsyncIterable<Buffer> | Promise<Readable>,
  budget: Budget,
  signal?: AbortSignal,
  crc?: number,
): Promise<void> {
  const target = join(dest, path);
  let sourceFailed = false;
  let file: WriteStream | undefined;
  try {
    await budget.folder(join(target, '..'));
    const body = await open();
    if (body instanceof EventEmitter) body.on('error', () => (sourceFailed = true));
    file = createWriteStream(target, { mode: 0o600 });
    if (crc === undefined) await pipeline(body, budget.meter(), file, { signal });
    else await pipeline(body, crcCheck(crc, raw), budget.meter(), file, { signal });
  } catch (err) {
    throw entryWriteError(err, raw, sourceFailed, signal);
  } finally {
    // A pipeline settles before the file it destroyed is closed (it may still be opening): the caller
    // removes `dest` on failure, so nothing may be written into it after this returns.
    if (file && !file.closed) await new Promise<void>((resolve) => file!.once('close', () => resolve()));
  }
}

/** Entries up to this size are read whole and written by one `writeFile` (see `writeSmallEntry`). */
const SMALL_ENTRY_BYTES = 1024 * 1024;

/**
 * Writes a small tar entry as `writeEntry` does, with its body gathered in memory and written at once:
 * a corpus is mostly files of tens of kilobytes, and a write stream and a pipeline for each of a thousand
 * cost the event loop more than their bytes. The same errors as `writeEntry`.
 */
async function writeSmallEntry(dest: string, path: string, raw: string, body: () => AsyncIterable<Buffer>, budget: Budget, signal?: AbortSignal): Promise<void> {
  const target = join(dest, path);
  let sourceFailed = false;
  try {
    await budget.folder(join(target, '..'));
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of body()) {
        budget.add(chunk.length);
        chunks.push(chunk);
      }
    } catch (err) {
      sourceFailed = !(err instanceof DomainError);
      throw err;
    }
    await writeFile(target, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), { mode: 0o600, signal });
  } catch (err) {
    throw entryWriteError(err, raw, sourceFailed, signal);
  }
}

async function makeDir(dest: string, path: string, raw: string, budget: Budget): Promise<void> {
  try {
    await budget.folder(join(dest, path));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code && ['ENOTDIR', 'EEXIST', 'ENAMETOOLONG', 'EINVAL'].includes(code)) throw unsafe(raw);
    throw err;
  }
}

// Unix file types in the high half of a zip entry's external attributes.
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

// yauzl and tar load with the first upload: a server that never receives a corpus never holds them.
async function extractZip(archive: string, dest: string, budget: Budget, limits: ExtractLimits, signal?: AbortSignal, onFile?: (path: string) => void): Promise<string[]> {
  const { default: yauzl } = await import('yauzl');
  let zip: yauzl.ZipFile;
  try {
    // Names are decoded and checked here, so an unsafe one gets DESIGN's message rather than yauzl's.
    zip = await yauzl.openPromise(archive, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true });
  } catch {
    throw notAnArchive();
  }
  const files: string[] = [];
  try {
    // The central directory's count is known up front: a zip listing too many entries stops before any write.
    if (zip.entryCount > limits.maxEntries) throw validationFailed(CORPUS_MESSAGES.tooManyEntries);
    for (;;) {
      signal?.throwIfAborted();
      const entry = await new Promise<yauzl.Entry | undefined>((resolve, reject) => {
        const onEntry = (e: yauzl.Entry) => done(() => resolve(e));
        const onEnd = () => done(() => resolve(undefined));
        const onError = () => done(() => reject(notAnArchive()));
        const done = (f: () => void) => {
          zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
          f();
        };
        zip.on('entry', onEntry).once('end', onEnd).once('error', onError);
        zip.readEntry();
      });
      if (!entry) break;
      budget.entry();
      const raw = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileName as unknown as Buffer, entry.extraFields, false);
      const path = safeEntryPath(raw);
      // The upper half of the external attributes is a Unix mode wherever a tool put one there: Info-ZIP
      // on Unix says host 3, macOS says 19, others leave it 0. Any file type found in it is believed.
      const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
      const isDir = raw.endsWith('/') || type === S_IFDIR;
      if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) throw unsafe(raw);
      if (path === undefined) continue;
      if (isDir) {
        await makeDir(dest, path, raw, budget);
        continue;
      }
      // A declared size past the budget needs no decompression to be refused.
      if (budget.bytes + entry.uncompressedSize > limits.maxExpandedBytes) throw validationFailed(CORPUS_MESSAGES.expandsTooMuch);
      const open = async () => {
        try {
          return await zip.openReadStreamPromise(entry);
        } catch {
          throw corruptEntry(raw);
        }
      };
      await writeEntry(dest, path, raw, open, budget, signal, entry.crc32);
      files.push(path);
      onFile?.(path);
    }
  } finally {
    zip.close();
  }
  return files;
}

/** Entry types of a tar that are content; everything else (links, devices, FIFOs, …) is refused. */
const TAR_FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const TAR_DIR_TYPES = new Set(['Directory', 'GNUDumpDir']);

/** node-tar's error for a stream that ends inside an entry's data: the entry is shorter than its header says. */
const truncatedEntry = (err: unknown): string | undefined => {
  const e = err as { tarCode?: string; message?: string; entry?: { path?: string } };
  return e.tarCode === 'TAR_BAD_ARCHIVE' && /Truncated input/.test(e.message ?? '') ? e.entry?.path : undefined;
};

/**
 * Extracts a tar (gzip undone here, not by the parser, so the decompressed stream is metered too). The
 * parser is fed by hand and no longer once it has seen the two zero blocks that end the archive: node-tar
 * re-concatenates whatever follows on every chunk it is given, so a small .tgz of endless trailing zeros
 * would spin a core for hours (DESIGN §17.3 — at most one chunk past the end is read).
 */
async function extractTar(
  source: Readable,
  dest: string,
  budget: Budget,
  limits: ExtractLimits,
  gzipped: boolean,
  signal?: AbortSignal,
  onFile?: (path: string) => void,
): Promise<string[]> {
  const { Parser } = await import('tar');
  const files: string[] = [];
  const parser = new Parser({ strict: true });
  let failure: unknown;
  let sawEnd = false;
  // The entry whose body is being written. A stream cut inside its last block (the data complete, the
  // padding not) leaves that body waiting for bytes that never come: a failure must end it, or the
  // extraction hangs (found by the fuzz test on a .tgz truncated mid-block).
  let writing: ReadEntry | undefined;
  let returned = false;
  const fail = (err: unknown) => {
    failure ??= err;
    const error = err instanceof Error ? err : new Error(String(err));
    parser.abort(error);
    writing?.destroy(error);
  };
  parser.on('eof', () => (sawEnd = true));
  // Entries are handled one at a time, in archive order: the parser waits while an entry's body is unread.
  let chain = Promise.resolve();
  parser.on('entry', (entry: ReadEntry) => {
    chain = chain.then(async () => {
      if (failure || returned) return void entry.resume();
      try {
        budget.entry();
        const raw = entry.path;
        const path = safeEntryPath(raw);
        if (TAR_DIR_TYPES.has(entry.type)) {
          entry.resume();
          if (path !== undefined) await makeDir(dest, path, raw, budget);
        } else if (TAR_FILE_TYPES.has(entry.type) && path !== undefined) {
          writing = entry;
          // fail() may destroy the entry while its folder is being made, before writeEntry listens: an
          // error event without a listener would throw out of the parser (writeEntry judges the body).
          entry.on('error', () => undefined);
          // A failure while the folder was being made has destroyed the entry: its body must not be written.
          const body = () => {
            if (failure) throw failure;
            return entry as unknown as Readable;
          };
          try {
            if (entry.size <= SMALL_ENTRY_BYTES) await writeSmallEntry(dest, path, raw, body, budget, signal);
            else await writeEntry(dest, path, raw, body, budget, signal);
          } finally {
            writing = undefined;
          }
          files.push(path);
          onFile?.(path);
        } else {
          throw unsafe(raw);
        }
      } catch (err) {
        entry.resume();
        fail(err);
      }
    });
  });
  // node-tar skips entries of a type it does not know (and over-long metadata): DESIGN refuses them.
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    chain = chain.then(() => {
      if (!failure) fail(unsafe(entry.path));
    });
  });
  // The last entry the parser handed out, in archive order. A stream that breaks after it (the next header
  // fails its checksum because that entry held more data than it declared; a .tgz cut inside its data) is
  // that entry's corruption, not a file that is no archive at all (DESIGN §17.3).
  let lastSeen: string | undefined;
  parser.on('entry', (entry: ReadEntry) => void (lastSeen = entry.path));
  const broken = () => (lastSeen === undefined ? notAnArchive() : corruptEntry(lastSeen));
  // With `strict`, a damaged or non-tar stream is an error, not a warning to skip past.
  parser.on('error', (err: unknown) => {
    const short = truncatedEntry(err);
    fail(err instanceof DomainError ? err : short !== undefined ? corruptEntry(short) : broken());
  });
  const ended = new Promise<void>((resolve) => parser.on('end', () => resolve()).on('abort', () => resolve()));
  const stages: (Readable | Transform)[] = [source];
  if (gzipped) stages.push(createGunzip(), new Budget({ maxEntries: Infinity, maxExpandedBytes: limits.maxExpandedBytes + limits.maxEntries * 2048 + 1024 * 1024 }).meter());
  const feed = async (source: AsyncIterable<Buffer>, { signal: failed }: { signal: AbortSignal }) => {
    // The pipeline aborts `failed` when a stage before this one errs (a gzip stream cut short): the wait
    // for a drain must end then too, or the pipeline waits for this stage forever.
    const sourceFailed = new Promise<void>((resolve) => failed.addEventListener('abort', () => resolve(), { once: true }));
    for await (const chunk of source) {
      if (failure || sawEnd) break;
      // A full parser waits for the entry being written; a failure aborts it instead of draining it.
      if (!parser.write(chunk)) await Promise.race([new Promise((r) => parser.once('drain', r)), ended, sourceFailed]);
      if (failure || sawEnd) break;
    }
  };
  try {
    await (pipeline as (...s: unknown[]) => Promise<void>)(...stages, feed, { signal });
  } catch (err) {
    if (signal?.aborted) {
      fail(signal.reason);
      await chain;
      throw signal.reason;
    }
    if (!sawEnd) fail(err instanceof DomainError ? err : broken());
  }
  parser.end();
  await ended;
  // The parser hands out the entries it had queued as each one before ends, even after it aborted: wait
  // until the chain stops growing, and let nothing that comes later write (the caller removes `dest`).
  for (let settled: Promise<void> | undefined; settled !== chain; ) await (settled = chain);
  returned = true;
  if (failure) throw failure instanceof DomainError ? failure : notAnArchive();
  return files;
}

/**
 * Extracts `archive` into `dest` (which must exist and be empty) and returns the paths of the regular
 * files written (normalised, `/`-separated), each also handed to `onFile` once written. Throws DESIGN §10.3's and §17.3's errors, or `signal`'s reason
 * once it aborts; on error, `dest` may hold a part of the archive: the caller removes it.
 */
export async function extractArchive(
  archive: string,
  dest: string,
  limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS,
  signal?: AbortSignal,
  onFile?: (path: string) => void,
): Promise<{ kind: ArchiveKind; files: string[] }> {
  const kind = await sniffArchive(archive);
  if (!kind) throw notAnArchive();
  const budget = new Budget(limits);
  const files =
    kind === 'zip'
      ? await extractZip(archive, dest, budget, limits, signal, onFile)
      : await extractTar(createReadStream(archive), dest, budget, limits, kind === 'tgz', signal, onFile);
  return { kind, files: [...new Set(files)] };
}

/**
 * Extracts a tar or gzip'd tar from `source` as its bytes arrive (an upload being received), with the
 * same checks, limits and errors as `extractArchive`. Reads `source` only until the archive's end: what
 * follows it is left unread (the caller drains or drops it). On error `dest` may hold a part: the caller
 * removes it.
 */
export async function extractTarStream(
  kind: 'tar' | 'tgz',
  source: Readable,
  dest: string,
  limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS,
  signal?: AbortSignal,
  onFile?: (path: string) => void,
): Promise<string[]> {
  const files = await extractTar(source, dest, new Budget(limits), limits, kind === 'tgz', signal, onFile);
  return [...new Set(files)];
}
