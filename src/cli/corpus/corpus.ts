import { basename } from 'node:path';
import type { Command } from '../core/commander.js';
import type { VoxClient } from '../../client/index.js';
import type { Corpus, CorpusUtterance } from '../../shared/schemas/corpora.js';
import type { ParsedCorpus } from '../../shared/corpus/index.js';
import type { HandlerContext } from '../core/context.js';
import { DomainError } from '../../shared/errors.js';
import { CliError, ExitCode, usageError } from '../core/errors.js';
import type { Column, Output } from '../core/output.js';
import { connect } from '../core/session.js';
import { examples, flagsOf, pagingOptions } from '../core/util.js';
import { listDirectory, tarOf, uploadSource, type DirectoryListing, type UploadSource } from './local.js';
import { UploadProgress } from './upload-progress.js';
import { retryAfter429 } from '../core/retry.js';
import { printPages } from '../eval/views.js';
import { describeCommand } from '../command-groups.js';

const corpusColumns: Column<Corpus>[] = [
  { header: 'corpus_id', get: (c) => c.corpus_id },
  { header: 'name', get: (c) => c.name },
  { header: 'layout', get: (c) => c.layout },
  { header: 'utterances', get: (c) => c.utterances },
  { header: 'speakers', get: (c) => c.speakers },
  { header: 'duration_s', get: (c) => c.total_duration_seconds },
  { header: 'metadata_fields', get: (c) => c.metadata_fields.join(' ') },
  { header: 'created_at', get: (c) => c.created_at },
];

const truncate = (s: string, n: number) => ([...s].length > n ? [...s].slice(0, n - 1).join('') + '…' : s);

/** Table (truncated reference) or CSV (everything, metadata as JSON) columns of corpus utterances. */
const utteranceColumns = (full: boolean): Column<CorpusUtterance>[] => [
  { header: 'utterance_id', get: (u) => u.utterance_id },
  { header: 'speaker', get: (u) => u.speaker },
  { header: 'duration_seconds', get: (u) => u.duration_seconds },
  { header: 'reference', get: (u) => (full ? u.reference : truncate(u.reference, 60)) },
  ...(full
    ? [
        { header: 'metadata', get: (u: CorpusUtterance) => JSON.stringify(u.metadata ?? {}) },
        { header: 'audio_url', get: (u: CorpusUtterance) => u.audio_url },
      ]
    : []),
];

/** The human view of a corpus. */
export function printCorpus(out: Output, c: Corpus): void {
  out.fields([
    ['corpus_id', c.corpus_id],
    ['name', c.name],
    ['layout', c.layout],
    ['utterances', c.utterances],
    // An evaluation's bootstrap counts one block per speaker and one per utterance without a speaker
    // (DESIGN §10.5): say so here, or its SPEAKERS column reads as a miscount.
    ['speakers', `${c.speakers} named (in an evaluation, each utterance without a speaker is a block of its own)`],
    ['total_duration', `${c.total_duration_seconds} s`],
    ['metadata_fields', c.metadata_fields.join(', ') || '—'],
    ['created_at', c.created_at],
  ]);
}

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

/** `voxctl corpus upload|list|show|utterances|delete` (DESIGN §10.6). */
export function registerCorpus(program: Command, ctx: HandlerContext): void {
  const corpus = program.command('corpus').description(describeCommand('corpus'));

  examples(
    corpus
      .command('upload')
      .argument('<path>', 'a directory (audiofolder, Common Voice, LibriSpeech or Kaldi layout) or a .zip/.tar/.tar.gz/.tgz archive')
      .option('-n, --name <name>', 'corpus name, 1..200 characters (default: the folder or archive name)')
      .description('Upload a corpus: a directory is streamed as a tar (no temporary copy), an archive as is'),
    ['voxctl corpus upload ./my-recordings --name "Support calls"', 'voxctl corpus upload test-clean.tar.gz --name librispeech-test-clean --json'],
  ).action(async (path: string, _o, cmd: Command) => {
    const flags = flagsOf<{ name?: string }>(cmd);
    const name = corpusName(flags.name, path);
    // Refused locally before connecting: a wrong folder never starts an upload.
    const prepared = await prepareUpload(path);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const created = await uploadCorpusFrom(ctx, { client, out }, { name, prepared });
    if (out.json) return out.printJson(created);
    // -q: only the id, for `id=$(voxctl corpus upload ./calls -q)` (DESIGN §15.8).
    if (out.quiet) return out.write(created.corpus_id + '\n');
    printCorpus(out, created);
    out.success(`Uploaded ${created.utterances} utterance(s) of ${created.speakers} speaker(s) as ${created.corpus_id} (${created.layout}).`);
  });

  examples(pagingOptions(corpus.command('list')).description('List your corpora, newest first'), [
    'voxctl corpus list',
    'voxctl corpus list --csv > corpora.csv',
  ]).action(async (_o, cmd: Command) => {
    const flags = flagsOf<{ limit?: number; offset?: number; all?: boolean; csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    await printPages(out, flags, (p) => client.listCorpora(p), corpusColumns);
  });

  examples(corpus.command('show').argument('<id>', 'corpus id').description('Show a corpus: layout, utterances, speakers, duration, metadata fields'), [
    'voxctl corpus show cor_123',
    'voxctl corpus show cor_123 --json | jq .metadata_fields',
  ]).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf(cmd);
    const { client, out } = await connect(ctx, flags);
    const c = await client.getCorpus(id);
    if (out.json) return out.printJson(c);
    printCorpus(out, c);
  });

  examples(
    pagingOptions(corpus.command('utterances').argument('<id>', 'corpus id'), 'follow pages and list every utterance').description(
      "List a corpus's utterances: id, speaker, duration, reference (CSV adds metadata and audio URL)",
    ),
    ['voxctl corpus utterances cor_123', 'voxctl corpus utterances cor_123 --all --csv > utterances.csv'],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ limit?: number; offset?: number; all?: boolean; csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    await printPages(out, flags, (p) => client.listCorpusUtterances(id, p), utteranceColumns(Boolean(flags.csv)));
  });

  examples(corpus.command('delete').argument('<id>', 'corpus id').description('Delete a corpus and its audio (refused while an evaluation of it runs)'), [
    'voxctl corpus delete cor_123',
  ]).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf(cmd);
    const { client, out } = await connect(ctx, flags, { announce: true });
    await client.deleteCorpus(id);
    if (out.json) return out.printJson({ corpus_id: id, deleted: true });
    out.success(`Deleted corpus ${id}`);
  });
}

