import { basename } from 'node:path';
import type { Command } from '../core/commander.js';
import { paginate } from '../../client/index.js';
import type { DatasetSummary } from '../../shared/schemas/datasets.js';
import type { HandlerContext } from '../core/context.js';
import { CliError, ExitCode, usageError } from '../core/errors.js';
import type { Column } from '../core/output.js';
import { JobProgress, pollJob, watchJobs } from '../core/progress.js';
import { connect } from '../core/session.js';
import { validateDatasetCsv } from './csv.js';
import { withQuotaArithmetic } from '../core/api-errors.js';
import { examples, flagsOf, pagingOptions, readInputFile } from '../core/util.js';
import { downloadAll, type DownloadItem } from '../core/downloads.js';
import { describeCommand } from '../command-groups.js';

const datasetColumns: Column<DatasetSummary>[] = [
  { header: 'dataset_id', get: (d) => d.dataset_id },
  { header: 'name', get: (d) => d.name },
  { header: 'row_count', get: (d) => d.row_count },
  { header: 'created_at', get: (d) => d.created_at },
];

/** `voxctl dataset upload|list|show|download`. */
export function registerDataset(program: Command, ctx: HandlerContext): void {
  const dataset = program.command('dataset').description(describeCommand('dataset'));

  examples(
    dataset
      .command('upload')
      .argument('<file>', 'CSV with a header: text[,speaker_id]')
      .option('-n, --name <name>', 'dataset name (default: the file name)')
      .option('--language <language>', "native language of the random speakers drawn for rows without speaker_id (the service's default: English)")
      .option('--generate-audio', 'synthesise every row as a job')
      .option('--watch', 'with --generate-audio: wait for the job (exit 6 if it fails)')
      .description('Validate a CSV locally, then upload it'),
    ['voxctl dataset upload prompts.csv --name "Prompts v2"', 'voxctl dataset upload prompts.csv --name p --generate-audio --watch'],
  ).action(async (file: string, _o, cmd: Command) => {
    const flags = flagsOf<{ name?: string; language?: string; generateAudio?: boolean; watch?: boolean }>(cmd);
    const data = await readInputFile(file);
    const { problems, rows, characters } = await validateDatasetCsv(data);
    if (problems.length > 0) {
      // Exit 2, as when the service refuses the same file (DESIGN §7).
      throw new CliError(`${file} has ${problems.length} problem(s); nothing was uploaded:\n  ${problems.join('\n  ')}`, {
        exitCode: ExitCode.usage,
        code: 'validation_failed',
      });
    }
    const name = flags.name ?? basename(file).replace(/\.csv$/i, '');
    if (name.length < 1 || name.length > 200) throw usageError('--name must be 1..200 characters');
    const { client, out } = await connect(ctx, flags, { announce: true });
    const upload = () => client.uploadDataset({ file: { data, filename: basename(file), contentType: 'text/csv' }, name, language: flags.language, generateAudio: Boolean(flags.generateAudio) });
    const created = await withQuotaArithmetic(client.usage, characters, upload);
    if (!(flags.watch && created.job_id)) {
      if (out.json) return out.printJson(created);
      out.write(created.dataset_id + '\n');
      out.success(`Uploaded ${rows} row(s) as ${created.dataset_id}${created.job_id ? `; generating audio in job ${created.job_id}` : ''}.`);
      return;
    }
    const [job] = await watchJobs([created.job_id], pollJob(ctx, client, out), { progress: new JobProgress(out, () => ctx.clock.now().getTime()), sleep: ctx.clock.sleep });
    if (out.json) out.printJson(created);
    else out.write(created.dataset_id + '\n');
    if (job!.status === 'failed' || job!.status === 'partial') {
      throw new CliError(`Audio generation job ${job!.job_id} ended ${job!.status}`, { exitCode: ExitCode.jobFailed, hint: `voxctl batch status ${job!.job_id}` });
    }
  });

  examples(
    pagingOptions(dataset.command('list')).description('List your datasets'),
    ['voxctl dataset list', 'voxctl dataset list --csv'],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<{ limit?: number; offset?: number; all?: boolean; csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    if (flags.all) {
      const items: DatasetSummary[] = [];
      for await (const d of paginate((p) => client.listDatasets(p), flags.offset ?? 0)) items.push(d);
      return out.list({ items, total: items.length, limit: items.length, offset: flags.offset ?? 0, has_more: false }, items, datasetColumns, flags);
    }
    const page = await client.listDatasets({ limit: flags.limit, offset: flags.offset });
    await out.list(page, page.items, datasetColumns, flags);
  });

  examples(dataset.command('show').argument('<id>', 'dataset id').option('--csv', 'rows as CSV').description('Show a dataset and its rows'), [
    'voxctl dataset show ds_123',
    'voxctl dataset show ds_123 --csv > rows.csv',
  ]).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    const ds = await client.getDataset(id);
    const cols: Column<(typeof ds.rows)[number]>[] = [
      { header: 'index', get: (r) => r.index },
      { header: 'speaker_id', get: (r) => r.speaker_id },
      { header: 'text', get: (r) => r.text },
      { header: 'audio_url', get: (r) => r.audio_url },
    ];
    if (out.json) return out.printJson(ds);
    if (flags.csv) return out.csv(ds.rows, cols);
    out.fields([
      ['dataset_id', ds.dataset_id],
      ['name', ds.name],
      ['row_count', ds.row_count],
      ['created_at', ds.created_at],
      ['job_id', ds.job_id],
    ]);
    out.write('\n');
    await out.table(ds.rows, cols.map((c) => (c.header === 'text' ? { ...c, get: (r: (typeof ds.rows)[number]) => truncate(r.text, 60) } : c)));
  });

  examples(
    dataset
      .command('download')
      .argument('<id>', 'dataset id')
      .argument('<dir>', 'folder for the WAVs and manifest.csv')
      .option('--force', 'overwrite existing files')
      .option('--skip-existing', 'keep files already complete (resume an interrupted download)')
      .description('Save the generated audio as zero-padded {index}.wav and a manifest.csv'),
    ['voxctl dataset download ds_123 corpus/', 'voxctl dataset download ds_123 corpus/ --skip-existing'],
  ).action(async (id: string, dir: string, _o, cmd: Command) => {
    const flags = flagsOf<{ force?: boolean; skipExisting?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const ds = await client.getDataset(id);
    if (!ds.rows.some((r) => r.audio_url)) {
      throw new CliError(`Dataset ${id} has no generated audio yet`, { hint: ds.job_id ? `wait for it: voxctl batch status ${ds.job_id} --watch` : 'upload it with --generate-audio' });
    }
    // Row durations and failures live on the generating job; the dataset rows carry only the URLs.
    const job = ds.job_id ? await client.getJob(ds.job_id).catch(() => undefined) : undefined;
    const results = new Map((job?.results ?? []).map((r) => [r.index, r]));
    const items: DownloadItem[] = ds.rows.map((row) => ({
      index: row.index,
      speaker_id: row.speaker_id,
      text: row.text,
      status: row.audio_url ? 'success' : (results.get(row.index)?.status ?? 'pending'),
      audio_url: row.audio_url,
      duration_seconds: results.get(row.index)?.duration_seconds,
    }));
    const summary = await downloadAll(ctx, client, out, items, dir, flags);
    if (out.json) out.printJson({ dataset_id: id, ...summary });
    else out.success(`Saved ${summary.saved} WAV file(s)${summary.skipped ? `, kept ${summary.skipped} already complete` : ''} and manifest.csv in ${dir}`);
  });
}

function truncate(s: string, n: number): string {
  const cps = [...s];
  return cps.length > n ? cps.slice(0, n - 1).join('') + '…' : s;
}
