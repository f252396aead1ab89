/**
 * How corpus manifests are read (DESIGN §17.2): never more than the first line to detect a layout, never a
 * manifest past 64 MB, never a line past 1 MB, never text that is not UTF-8 — and in slices that give the
 * event loop back, so a manifest of a hundred million newlines costs a scan, not the service.
 */
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { validationFailed } from '../errors.js';
import { CORPUS_MESSAGES } from './messages.js';

/** DESIGN §17.2's bounds, in bytes. */
export const MANIFEST_LIMITS = Object.freeze({ bytes: 64 * 1024 * 1024, lineBytes: 1024 * 1024 });

/** The files of a corpus as the manifest readers see them (an extracted archive, a local folder, tests). */
export interface ManifestFiles {
  /** The file's size in bytes. */
  size(path: string): Promise<number>;
  /** The file's first `maxBytes` bytes (the whole file when omitted). */
  read(path: string, maxBytes?: number): Promise<Uint8Array>;
}

/** A plain reader of a file's text or bytes (tests, callers with files in memory). */
export type ReadText = (path: string) => Promise<string | Uint8Array>;

const encoder = new TextEncoder();

/** `ManifestFiles` over a plain reader: each file read whole (they are in memory already). */
export function filesFromReader(read: ReadText): ManifestFiles {
  const bytes = async (path: string) => {
    const v = await read(path);
    return typeof v === 'string' ? encoder.encode(v) : v;
  };
  return {
    size: async (path) => (await bytes(path)).byteLength,
    read: async (path, maxBytes) => {
      const b = await bytes(path);
      return maxBytes === undefined ? b : b.subarray(0, maxBytes);
    },
  };
}

/** `ManifestFiles` of the folder `root` (paths relative, `/`-separated). */
export function folderFiles(root: string): ManifestFiles {
  return {
    size: async (path) => (await stat(join(root, path))).size,
    read: async (path, maxBytes) => {
      const fh = await open(join(root, path), 'r');
      try {
        const size = (await fh.stat()).size;
        const buf = Buffer.alloc(Math.min(size, maxBytes ?? size));
        let at = 0;
        while (at < buf.length) {
          const { bytesRead } = await fh.read(buf, at, buf.length - at, at);
          if (bytesRead === 0) break;
          at += bytesRead;
        }
        return buf.subarray(0, at);
      } finally {
        await fh.close();
      }
    },
  };
}

/** One line of a manifest: its 1-based number in the file and its text (no line break). */
export interface ManifestLine {
  line: number;
  text: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });
const LF = 0x0a;
const CR = 0x0d;

/** True when every byte is ASCII (no decoder needed). */
function ascii(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

/** Bytes scanned between two turns given back to the event loop. */
const SLICE_BYTES = 1024 * 1024;

/**
 * The lines of a manifest's bytes (LF, CRLF or a lone CR end one; a leading BOM is dropped), each checked:
 * at most 1 MB (`{manifest}:{line}: line too long`) and UTF-8 (`{manifest}:{line}: not valid UTF-8`);
 * `display` names the manifest in those messages. Lines holding only spaces or tabs are checked and counted
 * but not yielded when `skipBlank`, so a file of newlines costs a scan and no strings. `undefined` is
 * yielded after each megabyte scanned: the caller's moment to give the event loop a turn.
 */
export function* scanLines(bytes: Uint8Array, display: string, opts: { skipBlank?: boolean } = {}): Generator<ManifestLine | undefined> {
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let line = 1;
  let mark = start;
  const n = bytes.length;
  for (;;) {
    let end = start;
    let blank = true;
    while (end < n) {
      const b = bytes[end]!;
      if (b === LF || b === CR) break;
      if (blank && b !== 0x20 && b !== 0x09) blank = false;
      end++;
    }
    if (end - start > MANIFEST_LIMITS.lineBytes) throw validationFailed(CORPUS_MESSAGES.lineTooLong(display, line));
    // The empty rest after a final line break is no line.
    const last = end === n;
    if (!(blank && opts.skipBlank) && !(last && start === n && line > 1)) {
      let text: string;
      if (ascii(bytes, start, end)) text = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
      else {
        try {
          text = decoder.decode(bytes.subarray(start, end));
        } catch {
          throw validationFailed(CORPUS_MESSAGES.notUtf8(display, line));
        }
      }
      yield { line, text };
    }
    if (last) return;
    start = end + (bytes[end] === CR && bytes[end + 1] === LF ? 2 : 1);
    line++;
    if (start - mark >= SLICE_BYTES) {
      mark = start;
      yield undefined;
    }
  }
}

/** `scanLines` in slices: a turn of the event loop after each megabyte and every 2,048 lines yielded. */
export async function* manifestLines(bytes: Uint8Array, display: string, opts: { skipBlank?: boolean } = {}): AsyncGenerator<ManifestLine> {
  let since = 0;
  for (const l of scanLines(bytes, display, opts)) {
    if (l === undefined || ++since >= 2048) {
      since = 0;
      await nextTurn();
      if (l === undefined) continue;
    }
    yield l;
  }
}

/**
 * Every line of a manifest checked (length, UTF-8) in slices that give the event loop back; then the
 * bytes as one string (BOM kept) for a parser that reads the text itself.
 */
export async function checkedText(bytes: Uint8Array, display: string): Promise<string> {
  for await (const _ of manifestLines(bytes, display, { skipBlank: true })) {
    // Only the checks matter here.
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** The manifest's bytes, or `Manifest too large: {display}` past 64 MB (checked before reading). */
export async function readManifest(files: ManifestFiles, path: string, display: string): Promise<Uint8Array> {
  if ((await files.size(path)) > MANIFEST_LIMITS.bytes) throw validationFailed(CORPUS_MESSAGES.manifestTooLarge(display));
  return files.read(path);
}

/** The first line of a file, read alone (at most 1 MB and a line break): what layout detection looks at. */
export async function firstLine(files: ManifestFiles, path: string, display: string): Promise<string> {
  const head = await files.read(path, MANIFEST_LIMITS.lineBytes + 2);
  for (const l of scanLines(head, display)) if (l) return l.text;
  return '';
}
