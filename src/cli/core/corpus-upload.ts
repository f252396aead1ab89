// A corpus folder or archive on this machine, checked with the service's own rules and uploaded with byte
// progress: `corpus upload` and `eval run --corpus PATH` (which uploads first) share it.
import { basename } from 'node:path';
import type { VoxClient } from '../../client/index.js';
import type { Corpus } from '../../shared/schemas/corpora.js';
import type { ParsedCorpus } from '../../shared/corpus/index.js';
import { DomainError } from '../../shared/errors.js';
import type { HandlerContext } from './context.js';
import { CliError, ExitCode, usageError } from './errors.js';
import type { Output } from './output.js';
import { retryAfter429 } from './retry.js';
import { listDirectory, tarOf, uploadSource, type DirectoryListing, type UploadSource } from './corpus-local.js';
import { UploadProgress } from './upload-progress.js';

/** The name a corpus gets without `--name`: the folder's or archive's name without its extension. */
export const defaultCorpusName = (path: string): string =>
  basename(path.replace(/[\\/]+$/, '')).replace(/\.(zip|tar\.gz|tgz|tar)$/i, '') || 'corpus';

/** How long `corpus upload` waits in all for a free upload slot (another upload may take minutes). */
const UPLOAD_RETRY_WAIT_MS = 30 * 60_000;

/**
 * Streams a prepared PATH (see `prepareUpload`) to the service with byte progress: a directory as a tar
 * made while it is read (no temporary copy), an archive as it is. Resolves to the corpus view.
 */
export async function uploadCorpusFrom(
  ctx: HandlerContext,
  session: { client: VoxClient; out: Output },
  input: { name: string; prepared: PreparedUpload },
): Promise<Corpus> {
  const { client, out } = session;
  const { source, listing } = input.prepared;
  const directory = source.kind === 'directory';
  const total = directory ? listing!.tarBytes : source.size;
  const progress = new UploadProgress(out, `Uploading ${input.name}`, total, () => ctx.clock.now().getTime());
  let sent = 0;
  let told = false;
  // At most two uploads of a user run at once (DESIGN §17.3): a 429 is waited out (its Retry-After) and the
  // upload starts again from its first byte, a directory's tar made anew.
  const corpus = await retryAfter429(
    ctx,
    out,
    async () => {
      sent = 0;
      told = false;
      return client.uploadCorpus({
        name: input.name,
        // A directory: a tar produced while it is sent; an archive: streamed from disk as it is.
        file: directory ? await tarOf(source.path, listing!.files) : source.path,
        filename: directory ? `${defaultCorpusName(source.path)}.tar` : source.filename,
        onProgress: (bytes) => {
          sent = bytes;
          progress.update(bytes);
          // The last byte is sent: the service now extracts and decodes every file (minutes for a big corpus).
          if (bytes >= total && !told && out.stderrTTY) {
            told = true;
            progress.update(bytes, true);
            out.info('Sent; the service is checking and decoding every file…');
          }
        },
      });
    },
    UPLOAD_RETRY_WAIT_MS,
  );
  if (!told) progress.update(sent, true);
  return corpus;
}

/**
 * Resolves PATH and, for a directory, reads its manifests locally with the service's own module (DESIGN
 * §10.1–10.3): layout, transcripts, audio files present, unique ids — the same message, and exit 2 as
 * when the service refuses it. Audio is decoded by the service only.
 */
export async function prepareUpload(path: string): Promise<PreparedUpload> {
  const source = await uploadSource(path);
  if (source.kind !== 'directory') return { source };
  const listing = await listDirectory(source.path);
  const { folderFiles, parseCorpus } = await import('../../shared/corpus/index.js');
  try {
    // The service's own rules: the layout, then every manifest line (transcripts, files present, ids).
    return { source, listing, parsed: await parseCorpus(listing.files, folderFiles(source.path)) };
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    // The service's message and code (scripts compare them), where it happened on the next line; a file
    // missing from a folder is said to be missing from the folder, not from an archive (issue 30).
    const message = e.message.replace(FOLDER_NOT_ARCHIVE, ': audio file not found in the folder: ');
    throw new CliError(message, { exitCode: ExitCode.usage, code: e.code, hint: `${path}: nothing was uploaded`, cause: e });
  }
}

/** The words of `CORPUS_MESSAGES.audioNotFound` that speak of an archive. */
const FOLDER_NOT_ARCHIVE = /: audio file not found in the archive: /;

/** PATH resolved and checked: what to send, and a directory's listing and parsed manifests. */
export interface PreparedUpload {
  source: UploadSource;
  listing?: DirectoryListing;
  /** A directory's utterances as the service will read them (`eval run --dry-run` prices them). */
  parsed?: ParsedCorpus;
}

/** Checks `--name` as the service does (1..200 characters). */
export function corpusName(name: string | undefined, path: string): string {
  const chosen = name ?? defaultCorpusName(path);
  const length = [...chosen].length;
  if (length < 1 || length > 200) throw usageError('--name must be 1..200 characters');
  return chosen;
}
