import type { Command } from '../core/commander.js';
import type { Corpus, CorpusUtterance } from '../../shared/schemas/corpora.js';
import type { HandlerContext } from '../core/context.js';
import type { Column, Output } from '../core/output.js';
import { connect } from '../core/session.js';
import { examples, flagsOf, pagingOptions } from '../core/util.js';
import { corpusName, prepareUpload, uploadCorpusFrom } from '../core/corpus-upload.js';
import { printPages } from '../core/pages.js';
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

