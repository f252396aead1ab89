/**
 * Receives an uploaded archive as its bytes arrive (DESIGN §10.3, §17.3). A tar or gzip'd tar is extracted
 * while it streams in, so nothing but its files is written; a zip, whose central directory is at its end,
 * is written whole to the upload folder and extracted once received. The request body is always read to
 * its end (its size limit is judged there, and the fields after the file are parsed), but an extraction
 * that has ended (the archive's end reached, or a refusal) is given no more of it. A refusal is kept, not
 * thrown: the route still checks the size and the name first, as when the archive was extracted after it.
 */
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { addAbortSignal, PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CORPUS_MESSAGES } from '../../../shared/corpus/index.js';
import { validationFailed } from '../../../shared/errors.js';
import { archiveKindOf, extractArchive, extractTarStream, SNIFF_BYTES, type ExtractLimits } from './archive.js';
import type { UploadDir } from './upload.js';

/**
 * What receiving left: a tar's extracted files, a zip in `dir.archive` still to extract, or the refusal of
 * the archive, reported once the rest of the request has been checked.
 */
export type ReceivedArchive = { files: string[] } | { zip: true } | { refused: unknown };

/** Ends when `stream` can take more, closes, or `settled` settles. */
function roomIn(stream: PassThrough, settled: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done);
      resolve();
    };
    stream.once('drain', done).once('close', done);
    void settled.then(done);
  });
}

/**
 * Reads the uploaded file `body` into `dir`: a tar extracted into `dir.files` as it arrives (each file
 * handed to `dir.decodes` once written), a zip written to `dir.archive`. Rejects only with the body's own errors (a client that left: `signal`'s reason; the
 * multipart size limit) after any extraction has stopped writing; what the archive itself is refused for
 * comes back as `refused`.
 */
export async function receiveArchive(body: Readable, dir: UploadDir, limits: ExtractLimits, signal?: AbortSignal): Promise<ReceivedArchive> {
  const source = signal ? addAbortSignal(signal, body) : body;
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const rest: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => chunks };
  const drain = async () => {
    for await (const chunk of rest) void chunk;
  };
  const parts: Buffer[] = [];
  let length = 0;
  while (length < SNIFF_BYTES) {
    const next = await chunks.next();
    if (next.done) break;
    parts.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(parts);
  const kind = archiveKindOf(head);
  if (kind === 'zip') {
    async function* whole(): AsyncGenerator<Buffer> {
      yield head;
      yield* rest;
    }
    await pipeline(Readable.from(whole(), { objectMode: false }), createWriteStream(dir.archive, { mode: 0o600 }), ...(signal ? [{ signal }] : []));
    return { zip: true };
  }
  if (!kind) {
    await drain();
    return { refused: validationFailed(CORPUS_MESSAGES.notAnArchive) };
  }
  await mkdir(dir.files, { mode: 0o700 });
  const input = new PassThrough();
  // The extraction's pipeline listens while it runs; a write after it ended must not throw.
  input.on('error', () => undefined);
  let over = false;
  const extraction = extractTarStream(kind, input, dir.files, limits, signal, dir.decodes.written).then(
    (files): ReceivedArchive => ({ files }),
    (refused: unknown): ReceivedArchive => ({ refused }),
  );
  void extraction.then(() => (over = true));
  const feed = async (chunk: Buffer) => {
    if (over || input.destroyed) return;
    if (!input.write(chunk)) await roomIn(input, extraction);
  };
  try {
    await feed(head);
    for await (const chunk of rest) await feed(chunk);
    input.end();
  } catch (err) {
    // The body failed (the client left, the size limit): stop the extraction before anything else runs.
    input.destroy(err instanceof Error ? err : new Error(String(err)));
    await extraction;
    throw err;
  }
  const result = await extraction;
  // A client that left is the answer, whatever the archive held.
  signal?.throwIfAborted();
  return result;
}

/** The files of a received archive: a zip extracted now into `dir.files`; a refusal thrown. */
export async function extractReceived(received: ReceivedArchive, dir: UploadDir, limits: ExtractLimits, signal?: AbortSignal): Promise<string[]> {
  if ('refused' in received) throw received.refused;
  if ('files' in received) return received.files;
  await mkdir(dir.files, { mode: 0o700 });
  return (await extractArchive(dir.archive, dir.files, limits, signal, dir.decodes.written)).files;
}
