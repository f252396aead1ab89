import { randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import type { Command } from '../core/commander.js';
import { Option } from '../core/commander.js';
import { paginate } from '../../client/index.js';
import type { BatchCreated, BatchItem, Job, JobSummary } from '../../shared/schemas/tts.js';
import type { HandlerContext } from '../core/context.js';
import { CliError, ExitCode, usageError } from '../core/errors.js';
import type { Column, Output } from '../core/output.js';
import { withQuotaArithmetic } from '../core/api-errors.js';
import { JobProgress, pollJob, watchJobs } from '../core/progress.js';
import { connect } from '../core/session.js';
import { examples, flagsOf, pagingOptions, readInputFile, readStdin } from '../core/util.js';
import { downloadAll, type DownloadItem, type DownloadSummary } from '../core/downloads.js';
import { chooseSpeaker } from '../core/speaker-choice.js';
import { JOB_STATUSES, MAX_BATCH_ITEMS, SAMPLE_RATES } from '../../shared/constants.js';
import { describeCommand } from '../command-groups.js';
import { listOptions, submitOptions, type ListFlags, type SubmitFlags } from './options.js';

/** The service's batch limit: bigger inputs are split into several jobs. */
export const MAX_BATCH = MAX_BATCH_ITEMS;
const STATUSES: readonly string[] = JOB_STATUSES;

/** An input row: text and an optional speaker (filled from --speaker / the default). */
export interface InputItem {
  text: string;
  speaker_id?: string;
}

/** Parses a batch file: CSV (`text[,speaker_id]` header), JSONL, or JSON (`{items}` or an array). */
export async function parseBatchInput(content: string, name: string): Promise<InputItem[]> {
  const ext = extname(name).toLowerCase();
  const trimmed = content.replace(/^\uFEFF/, '').trim();
  const format = ext === '.csv' ? 'csv' : ext === '.jsonl' || ext === '.ndjson' ? 'jsonl' : ext === '.json' ? 'json' : sniff(trimmed);
  if (format === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (e) {
      throw usageError(`${name} is not valid JSON: ${(e as Error).message}`);
    }
    const items = Array.isArray(parsed) ? parsed : (parsed as { items?: unknown }).items;
    if (!Array.isArray(items)) throw usageError(`${name}: expected {"items": [...]} or an array of items`);
    return items.map((it, i) => toItem(it, `${name} item ${i}`));
  }
  if (format === 'jsonl') {
    return trimmed
      .split(/\r?\n/)
      .map((line, i) => [line, i + 1] as const)
      .filter(([line]) => line.trim() !== '')
      .map(([line, n]) => {
        try {
          return toItem(JSON.parse(line), `${name} line ${n}`);
        } catch (e) {
          if (e instanceof CliError) throw e;
          throw usageError(`${name} line ${n}: invalid JSON (${(e as Error).message})`);
        }
      });
  }
  const { parse } = await import('csv-parse/sync');
  let records: Record<string, string>[];
  try {
    records = parse(trimmed, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), skip_empty_lines: true, bom: true, relax_column_count: false });
  } catch (e) {
    throw usageError(`${name}: malformed CSV: ${(e as Error).message}`);
  }
  if (records.length > 0 && !('text' in records[0]!)) throw usageError(`${name}: CSV is missing required column 'text'`);
  return records.map((r) => ({ text: r.text ?? '', ...(r.speaker_id ? { speaker_id: r.speaker_id } : {}) }));
}

function sniff(text: string): 'json' | 'jsonl' | 'csv' {
  if (text.startsWith('[') || text.startsWith('{"items"') || /^\{\s*"items"/.test(text)) return 'json';
  if (text.startsWith('{')) return 'jsonl';
  return 'csv';
}

function toItem(value: unknown, where: string): InputItem {
  const v = value as { text?: unknown; speaker_id?: unknown };
  if (!v || typeof v !== 'object' || typeof v.text !== 'string') throw usageError(`${where}: needs a string "text"`);
  if (v.speaker_id !== undefined && typeof v.speaker_id !== 'string') throw usageError(`${where}: "speaker_id" must be a string`);
  return { text: v.text, ...(v.speaker_id ? { speaker_id: v.speaker_id } : {}) };
}

/** Splits items into chunks of at most MAX_BATCH, remembering where each chunk starts. */
export function chunk<T>(items: readonly T[], size = MAX_BATCH): { start: number; items: T[] }[] {
  const out: { start: number; items: T[] }[] = [];
  for (let i = 0; i < items.length; i += size) out.push({ start: i, items: items.slice(i, i + size) });
  return out;
}

const jobColumns: Column<JobSummary>[] = [
  { header: 'job_id', get: (j) => j.job_id },
  { header: 'status', get: (j) => j.status },
  { header: 'progress', get: (j) => j.progress },
  { header: 'total_items', get: (j) => j.total_items },
  { header: 'created_at', get: (j) => j.created_at },
];

/** The download entries of a finished job; `offset` shifts indexes of later chunks, `texts` fills the manifest. */
export function jobItems(job: Job, options: { offset?: number; texts?: readonly string[] } = {}): DownloadItem[] {
  const offset = options.offset ?? 0;
  return (job.results ?? []).map((r) => ({
    index: offset + r.index,
    speaker_id: r.speaker_id,
    text: options.texts?.[offset + r.index] ?? '',
    status: r.status,
    audio_url: r.audio_url,
    duration_seconds: r.duration_seconds,
  }));
}

/** Reports a finished download on stderr (or as JSON with the job ids). */
function reportDownload(out: Output, summary: DownloadSummary, jobIds: string[]): void {
  out.info(`Saved ${summary.saved} WAV file(s)${summary.skipped ? `, kept ${summary.skipped} already complete` : ''} and manifest.csv in ${summary.directory}${jobIds.length ? ` (${jobIds.join(', ')})` : ''}`);
}

/** Ends a watch with exit 6 when a job finished `failed` or `partial` (DESIGN §7), naming a few failed items. */
export function failIfUnsuccessful(jobs: readonly Job[]): void {
  const bad = jobs.filter((j) => j.status === 'failed' || j.status === 'partial');
  if (bad.length === 0) return;
  const errors = bad.flatMap((j) => (j.results ?? []).filter((r) => r.status === 'failed').slice(0, 3).map((r) => `  ${j.job_id} item ${r.index}: ${r.error ?? 'failed'}`));
  throw new CliError(`${bad.map((j) => `${j.job_id} ended ${j.status}`).join(', ')}${errors.length ? '\n' + errors.join('\n') : ''}`, {
    exitCode: ExitCode.jobFailed,
    hint: 'see `voxctl batch status JOB` for every item',
  });
}

/** `voxctl batch submit|status|list|download` (alias `jobs`). */
export function registerBatch(program: Command, ctx: HandlerContext): void {
  const batch = program.command('batch').alias('jobs').description(describeCommand('batch'));

  examples(
    batch
      .command('submit')
      .argument('<file>', "CSV (text[,speaker_id]), JSONL, or JSON {items}; '-' reads stdin")
      .option('-s, --speaker <id>', 'speaker for items without speaker_id (default: config `speaker`)')
      .option('--watch', 'show progress until every job is done (exit 6 if one fails)')
      .option('--download <dir>', 'save the WAVs as zero-padded {index}.wav plus manifest.csv in this folder (implies --watch)')
      .option('--force', 'overwrite existing WAVs in the download folder')
      .option('--skip-existing', 'keep WAVs already complete in the download folder (resume)')
      .addOption(new Option('--sample-rate <hz>', 'resample the output').choices(SAMPLE_RATES.map(String)))
      .description('Submit texts for synthesis; more than 100 items become several jobs'),
    ['voxctl batch submit lines.csv --speaker spk_en-gb-scotland_003 --watch', 'voxctl batch submit items.jsonl --download out/', 'JOB=$(voxctl batch submit items.json -q)'],
  ).action(async (file: string, _o, cmd: Command) => {
    const flags = flagsOf<SubmitFlags>(cmd);
    const options = submitOptions(file, flags);
    const content = options.input.from === 'stdin' ? await readStdin(ctx) : (await readInputFile(options.input.file)).toString('utf8');
    const items = await parseBatchInput(content, file);
    if (items.length === 0) throw usageError(`${file} has no items`);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const needsDefault = items.some((i) => !i.speaker_id);
    const fallback = needsDefault ? (await chooseSpeaker(ctx, client, out, options.speaker)).id : '';
    const full: BatchItem[] = items.map((i) => ({ text: i.text, speaker_id: i.speaker_id ?? fallback }));
    const chunks = chunk(full);
    const created: (BatchCreated & { start: number })[] = [];
    for (const c of chunks) {
      const needed = c.items.reduce((n, i) => n + [...i.text].length, 0);
      const job = await withQuotaArithmetic(client.usage, needed, () => client.submitBatch(
        { items: c.items, ...(options.sampleRate ? { sample_rate: options.sampleRate } : {}) },
        { idempotencyKey: randomUUID() },
      ));
      created.push({ ...job, start: c.start });
    }
    if (chunks.length > 1) out.info(`${full.length} items split into ${chunks.length} jobs of at most ${MAX_BATCH}.`);
    if (!options.watch) {
      if (out.json) return out.printJson(created.length === 1 ? strip(created[0]!) : created.map(strip));
      for (const j of created) out.write(j.job_id + '\n');
      out.info(`Follow with: voxctl batch status ${created[0]!.job_id} --watch`);
      return;
    }
    const jobs = await watchJobs(created.map((j) => j.job_id), pollJob(ctx, client, out), { progress: new JobProgress(out, () => ctx.clock.now().getTime()), sleep: ctx.clock.sleep });
    if (options.download?.dir) {
      const texts = full.map((i) => i.text);
      const entries = jobs.flatMap((job, i) => jobItems(job, { offset: created[i]!.start, texts }));
      reportDownload(out, await downloadAll(ctx, client, out, entries, options.download.dir, options.download), jobs.map((j) => j.job_id));
    }
    if (out.json) out.printJson(jobs.length === 1 ? jobs[0] : jobs);
    else for (const j of jobs) out.write(`${j.job_id}\t${j.status}\n`);
    failIfUnsuccessful(jobs);
  });

  examples(
    batch.command('status').argument('<job>', 'job id').option('--watch', 'poll until the job is done (exit 6 if it fails)').description('Show a job and its results'),
    ['voxctl batch status job_123', 'voxctl jobs status job_123 --watch --json'],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ watch?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    const job = flags.watch
      ? (await watchJobs([id], pollJob(ctx, client, out), { progress: new JobProgress(out, () => ctx.clock.now().getTime()), sleep: ctx.clock.sleep }))[0]!
      : await client.getJob(id);
    if (out.json) out.printJson(job);
    else {
      out.fields([
        ['job_id', job.job_id],
        ['status', job.status],
        ['progress', `${job.progress}%`],
        ['items', `${job.completed_items} done, ${job.failed_items} failed, ${job.total_items} total`],
        ['created_at', job.created_at],
        ['completed_at', job.completed_at],
      ]);
      if (job.results?.length) {
        out.write('\n');
        await out.table(job.results, [
          { header: 'index', get: (r) => r.index },
          { header: 'speaker_id', get: (r) => r.speaker_id },
          { header: 'status', get: (r) => r.status },
          { header: 'duration_s', get: (r) => r.duration_seconds },
          { header: 'audio_url / error', get: (r) => r.audio_url ?? r.error },
        ]);
      }
    }
    if (flags.watch) failIfUnsuccessful([job]);
  });

  examples(
    pagingOptions(batch.command('list').addOption(new Option('--status <status>', 'only jobs in this state').choices(STATUSES))).description(
      'List your jobs, newest first',
    ),
    ['voxctl batch list --status processing', 'voxctl jobs list --json | jq -r ".items[].job_id"'],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<ListFlags>(cmd);
    const { status, paging } = listOptions(flags);
    const { client, out } = await connect(ctx, flags);
    if (paging.all) {
      const items: JobSummary[] = [];
      for await (const j of paginate((p) => client.listJobs({ status, ...p }), paging.offset)) items.push(j);
      return out.list({ items, total: items.length, limit: items.length, offset: paging.offset, has_more: false }, items, jobColumns, flags);
    }
    const page = await client.listJobs({ status, limit: paging.limit, offset: paging.offset });
    await out.list(page, page.items, jobColumns, flags);
  });

  examples(
    batch
      .command('download')
      .argument('<job>', 'job id')
      .argument('<dir>', 'folder for the zero-padded {index}.wav files and manifest.csv')
      .option('--force', 'overwrite existing files')
      .option('--skip-existing', 'keep files already complete (resume an interrupted download)')
      .description("Save a finished job's WAVs and a manifest.csv"),
    ['voxctl batch download job_123 out/', 'voxctl batch download job_123 out/ --skip-existing'],
  ).action(async (id: string, dir: string, _o, cmd: Command) => {
    const flags = flagsOf<{ force?: boolean; skipExisting?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const job = await client.getJob(id);
    if (!job.results) throw new CliError(`Job ${id} is ${job.status}; results appear when it is completed or partial`, { hint: `voxctl batch status ${id} --watch` });
    const summary = await downloadAll(ctx, client, out, jobItems(job), dir, flags);
    if (out.json) out.printJson({ job_id: id, ...summary });
    else reportDownload(out, summary, [id]);
  });
}

function strip(job: BatchCreated & { start: number }): BatchCreated {
  const { start: _start, ...rest } = job;
  return rest;
}
