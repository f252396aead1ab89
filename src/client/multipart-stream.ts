/**
 * A multipart/form-data body built as a stream: text fields first, then one file part whose bytes are
 * pulled from the source as the socket takes them. FormData would need the whole file as a Blob; a corpus
 * archive (up to 2 GiB, or a directory tarred on the fly) must never be held in memory.
 */
import { builtin } from '../shared/builtin.js';

/** The file part: its bytes as they come, the file name sent, and a byte counter for progress bars. */
export interface StreamedFile {
  data: AsyncIterable<Uint8Array>;
  filename: string;
  contentType?: string;
  /** Called with the file bytes sent so far, after each chunk. */
  onProgress?: (bytesSent: number) => void;
}

/** Quotes a value for a Content-Disposition parameter (quotes and line breaks cannot appear raw). */
const quoted = (value: string): string => `"${value.replace(/[\r\n]/g, ' ').replace(/"/g, '%22')}"`;

/** Bytes gathered before a piece of the file is handed to the socket. */
const PIECE_BYTES = 256 * 1024;

/**
 * The source's bytes in pieces of at least `PIECE_BYTES` (the last may be shorter): a directory tarred on the
 * fly comes as a 512-byte header and a small body per file, and each piece costs a stream pull and a write.
 */
async function* coalesced(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let parts: Uint8Array[] = [];
  let size = 0;
  const joined = (): Uint8Array => {
    if (parts.length === 1) return parts[0]!;
    const out = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.byteLength;
    }
    return out;
  };
  for await (const chunk of source) {
    parts.push(chunk);
    size += chunk.byteLength;
    if (size < PIECE_BYTES) continue;
    yield joined();
    parts = [];
    size = 0;
  }
  if (size > 0) yield joined();
}

/** The Content-Type and body of a multipart request with `fields` and `file` (sent last). */
export function multipartStream(fields: Record<string, string>, file: StreamedFile): { contentType: string; body: AsyncIterable<Uint8Array> } {
  const boundary = `----voxctl${builtin('node:crypto').randomBytes(16).toString('hex')}`;
  const enc = new TextEncoder();
  async function* body(): AsyncGenerator<Uint8Array> {
    for (const [name, value] of Object.entries(fields)) {
      yield enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`);
    }
    yield enc.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=${quoted(file.filename)}\r\n` +
        `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
    );
    let sent = 0;
    for await (const chunk of coalesced(file.data)) {
      yield chunk;
      sent += chunk.byteLength;
      file.onProgress?.(sent);
    }
    yield enc.encode(`\r\n--${boundary}--\r\n`);
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: body() };
}
