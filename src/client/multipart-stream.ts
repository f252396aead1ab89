import { randomBytes } from 'node:crypto';

/** A file part whose bytes are streamed as they are read (a tar made on the fly, a 2 GB archive). */
export interface StreamedFile {
  filename: string;
  contentType: string;
  body: AsyncIterable<Uint8Array>;
}

// A quoted-string of a Content-Disposition parameter: no CR/LF, quotes and backslashes escaped.
const quoted = (value: string) => `"${value.replace(/[\r\n]+/g, ' ').replace(/(["\\])/g, '\\$1')}"`;

/**
 * A multipart/form-data body of text `fields` followed by one streamed `file` part, generated lazily:
 * only the chunk being sent is in memory. The fields come first so the service knows them before the
 * file's bytes arrive. `onFileBytes` is told the file bytes handed over so far (the progress of an upload).
 */
export function multipartStream(
  fields: Readonly<Record<string, string>>,
  fileField: string,
  file: StreamedFile,
  onFileBytes?: (sent: number) => void,
): { contentType: string; body: AsyncIterable<Uint8Array> } {
  const boundary = `----voxctl${randomBytes(12).toString('hex')}`;
  const head = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(k)}\r\n\r\n${v}\r\n`)
    .join('');
  const fileHead = `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(fileField)}; filename=${quoted(file.filename)}\r\nContent-Type: ${file.contentType}\r\n\r\n`;
  async function* body(): AsyncGenerator<Uint8Array> {
    yield Buffer.from(head + fileHead, 'utf8');
    let sent = 0;
    for await (const chunk of file.body) {
      if (chunk.length === 0) continue;
      yield chunk;
      sent += chunk.length;
      onFileBytes?.(sent);
    }
    yield Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: body() };
}
