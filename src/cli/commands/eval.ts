import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { Option } from 'commander';
import { paginate, type PageOf, type Paging, type VoxClient } from '../../client/index.js';
import { verdict } from '../../shared/comparison-verdict.js';
import { ConditionError, formatCondition, parseCondition } from '../../shared/conditions.js';
import type {
  CreateEvaluationRequest,
  EvaluationComparison,
  EvaluationDetail,
  EvaluationListItem,
  EvaluationSpeakers,
  EvaluationSummaryRow,
  EvaluationUtterance,
} from '../../shared/schemas/evaluations.js';
import { ALL_PROVIDERS } from '../stt-providers.js';
import type { HandlerContext } from '../context.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import type { Column, Output } from '../output.js';
import { connect } from '../session.js';
import { assertWritable, examples, flagsOf, intOption, pagingOptions, readInputFile, readStdin, writeOutputFile } from '../util.js';
import { parseProviders } from './stt.js';
import { EvaluationProgress, watchEvaluation } from './eval-watch.js';

/** The states of `--status`: the schema's EvaluationStatus, copied so TypeBox is not loaded at start-up (a test checks they match). */
export const STATUSES = ['pending', 'processing', 'completed', 'partial', 'failed', 'cancelled'];

/** Reads `--texts FILE` (or `-` for stdin): one text per line, blank lines skipped. */
export function parseTextLines(content: string): string[] {
  return content
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
}

/** `--conditions a,b`: each checked with the service's own parser (same message, exit 2), in canonical form. */
export function parseConditions(value: string): string[] {
  return value
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
    .map((c) => {
      try {
        return formatCondition(parseCondition(c));
      } catch (e) {
        if (e instanceof ConditionError) throw usageError(e.message, 'conditions: clean, telephone, noise:{snr dB -10..40}, speed:{factor 0.5..2}');
        throw e;
      }
    });
}

interface RunFlags {
  texts?: string;
  dataset?: string;
  speaker?: string[];
  filter?: string[];
  groupBy?: string;
  perGroup?: number;
  seed?: number;
  providers: string;
  conditions?: string;
  normalizer?: string;
  name?: string;
  watch?: boolean;
  report?: string;
  force?: boolean;
  maxWer?: number;
}

/**
 * The speaker selection of `eval run`: `--speaker` ids, or `--filter key=value…` with `--group-by` and
 * `--per-group`. Keys and groupings come from the shared schema (loaded here, not at CLI start-up).
 */
export async function speakerSelection(flags: Pick<RunFlags, 'speaker' | 'filter' | 'groupBy' | 'perGroup' | 'seed'>): Promise<EvaluationSpeakers> {
  const { EVALUATION_GROUP_BY, EvaluationSpeakerFilter } = await import('../../shared/schemas/evaluations.js');
  if (flags.groupBy !== undefined && !(EVALUATION_GROUP_BY as readonly string[]).includes(flags.groupBy)) {
    throw usageError(`--group-by must be one of ${EVALUATION_GROUP_BY.join(', ')}, got '${flags.groupBy}'`);
  }
  const groupBy = flags.groupBy as EvaluationSpeakers['group_by'];
  const seed = flags.seed === undefined ? {} : { seed: flags.seed };
  const ids = (flags.speaker ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  if (ids.length > 0) {
    if (flags.filter?.length) throw usageError('Give either --speaker or --filter, not both');
    if (flags.perGroup !== undefined) throw usageError('--per-group applies to --filter; with --speaker every named speaker is used');
    return { ids, ...(groupBy ? { group_by: groupBy } : {}), ...seed };
  }
  if (!flags.filter?.length && groupBy === undefined && flags.perGroup === undefined) {
    throw usageError('Choose speakers with --speaker ID… or --filter key=value… --group-by G --per-group K', 'see `voxctl speakers facets` for the values');
  }
  const keys = Object.keys(EvaluationSpeakerFilter.properties);
  const filter: Record<string, string> = {};
  for (const kv of flags.filter ?? []) {
    const eq = kv.indexOf('=');
    const key = eq > 0 ? kv.slice(0, eq).trim().replace(/-/g, '_') : '';
    if (!keys.includes(key) || eq === kv.length - 1) throw usageError(`--filter takes key=value with key one of ${keys.join(', ')}, got '${kv}'`);
    filter[key] = kv.slice(eq + 1).trim();
  }
  if (groupBy === undefined || flags.perGroup === undefined) throw usageError('--filter needs --group-by G and --per-group K', 'e.g. --group-by accent --per-group 2');
  return { filter, group_by: groupBy, per_group: flags.perGroup, ...seed };
}

/** The request body of `eval run`, validated as far as the CLI can without the service. */
export async function runRequest(ctx: HandlerContext, flags: RunFlags): Promise<CreateEvaluationRequest> {
  if ((flags.texts === undefined) === (flags.dataset === undefined)) throw usageError('Give exactly one of --texts FILE or --dataset ID');
  let texts: string[] | undefined;
  if (flags.texts !== undefined) {
    texts = parseTextLines(flags.texts === '-' ? await readStdin(ctx) : (await readInputFile(flags.texts)).toString('utf8'));
    if (texts.length === 0) throw usageError(`${flags.texts} has no texts (one per line)`);
  }
  const providers = parseProviders(flags.providers);
  const unknown = providers.find((p) => !(ALL_PROVIDERS as readonly string[]).includes(p));
  if (unknown) throw usageError(`Unknown provider: ${unknown}`, `known: ${ALL_PROVIDERS.join(', ')}`);
  const conditions = flags.conditions === undefined ? undefined : parseConditions(flags.conditions);
  if (conditions?.length === 0) throw usageError('--conditions needs at least one condition');
  let normalizer: CreateEvaluationRequest['normalizer'];
  if (flags.normalizer !== undefined) {
    const { NORMALIZER_NAMES } = await import('../../shared/normalizers/index.js');
    if (!(NORMALIZER_NAMES as readonly string[]).includes(flags.normalizer)) throw usageError(`--normalizer must be one of ${NORMALIZER_NAMES.join(', ')}, got '${flags.normalizer}'`);
    normalizer = flags.normalizer as CreateEvaluationRequest['normalizer'];
  }
  return {
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(texts ? { texts } : { dataset_id: flags.dataset! }),
    speakers: await speakerSelection(flags),
    providers,
    ...(conditions ? { conditions } : {}),
    ...(normalizer ? { normalizer } : {}),
  };
}

/** Parses `--max-wer X` (a WER, 0 or more: 0.25 means 25%). */
function werOption(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x < 0) throw usageError(`--max-wer must be a number ≥ 0 (0.25 = 25% WER), got '${value}'`);
  return x;
}

/**
 * The CI gate: the group-`all` rows whose WER exceeds `maxWer` — a row where nothing could be scored
 * (WER null) fails too, since a provider that transcribed nothing must not pass.
 */
export function gateFailures(summary: readonly EvaluationSummaryRow[], maxWer: number): EvaluationSummaryRow[] {
  return summary.filter((r) => r.group === 'all' && (r.wer === null || r.wer > maxWer));
}

const fmt = (x: number | null) => (x === null ? null : x.toFixed(4));
const ci = (c: readonly [number, number] | null) => (c ? `${c[0].toFixed(4)}–${c[1].toFixed(4)}` : null);

const summaryColumns: Column<EvaluationSummaryRow>[] = [
  { header: 'provider', get: (r) => r.provider },
  { header: 'condition', get: (r) => r.condition },
  { header: 'group', get: (r) => r.group },
  { header: 'utterances', get: (r) => r.utterances },
  { header: 'speakers', get: (r) => r.speakers },
  { header: 'wer', get: (r) => fmt(r.wer) },
  { header: 'wer_ci95', get: (r) => ci(r.wer_ci95) },
  { header: 'cer', get: (r) => fmt(r.cer) },
  { header: 'p50_ms', get: (r) => r.latency_ms.p50 },
  { header: 'p95_ms', get: (r) => r.latency_ms.p95 },
  { header: 'failed', get: (r) => r.failed_requests },
];

/** CSV keeps every count and both interval ends in their own columns (for spreadsheets). */
const summaryCsvColumns: Column<EvaluationSummaryRow>[] = [
  ...summaryColumns.slice(0, 5),
  { header: 'reference_words', get: (r) => r.reference_words },
  { header: 'substitutions', get: (r) => r.substitutions },
  { header: 'deletions', get: (r) => r.deletions },
  { header: 'insertions', get: (r) => r.insertions },
  { header: 'wer', get: (r) => r.wer },
  { header: 'wer_ci95_low', get: (r) => r.wer_ci95?.[0] },
  { header: 'wer_ci95_high', get: (r) => r.wer_ci95?.[1] },
  { header: 'cer', get: (r) => r.cer },
  { header: 'latency_p50_ms', get: (r) => r.latency_ms.p50 },
  { header: 'latency_p95_ms', get: (r) => r.latency_ms.p95 },
  { header: 'failed_requests', get: (r) => r.failed_requests },
];

const comparisonColumns: Column<EvaluationComparison>[] = [
  { header: 'condition', get: (c) => c.condition },
  { header: 'a', get: (c) => c.a },
  { header: 'b', get: (c) => c.b },
  { header: 'wer_a', get: (c) => fmt(c.wer_a) },
  { header: 'wer_b', get: (c) => fmt(c.wer_b) },
  { header: 'difference', get: (c) => fmt(c.difference) },
  { header: 'ci95', get: (c) => ci(c.ci95) },
  { header: 'p_a_better', get: (c) => c.p_a_better },
  { header: 'verdict', get: (c) => verdict(c) },
];

const listColumns: Column<EvaluationListItem>[] = [
  { header: 'evaluation_id', get: (e) => e.evaluation_id },
  { header: 'name', get: (e) => e.name },
  { header: 'status', get: (e) => e.status },
  { header: 'progress', get: (e) => e.progress },
  { header: 'total_utterances', get: (e) => e.total_utterances },
  { header: 'created_at', get: (e) => e.created_at },
];

const truncate = (s: string | null, n: number) => (s === null ? null : [...s].length > n ? [...s].slice(0, n - 1).join('') + '…' : s);

const utteranceColumns = (full: boolean): Column<EvaluationUtterance>[] => [
  { header: 'text_index', get: (u) => u.text_index },
  { header: 'speaker_id', get: (u) => u.speaker_id },
  { header: 'group', get: (u) => u.group },
  { header: 'condition', get: (u) => u.condition },
  { header: 'provider', get: (u) => u.provider },
  { header: 'wer', get: (u) => u.wer },
  ...(full
    ? [
        { header: 'substitutions', get: (u: EvaluationUtterance) => u.substitutions },
        { header: 'deletions', get: (u: EvaluationUtterance) => u.deletions },
        { header: 'insertions', get: (u: EvaluationUtterance) => u.insertions },
      ]
    : []),
  { header: 'latency_ms', get: (u) => u.latency_ms },
  ...(full ? [{ header: 'confidence', get: (u: EvaluationUtterance) => u.confidence }] : []),
  { header: 'determinable', get: (u) => u.determinable },
  ...(full
    ? [
        { header: 'reference', get: (u: EvaluationUtterance) => u.reference },
        { header: 'transcript', get: (u: EvaluationUtterance) => u.transcript },
        { header: 'error_code', get: (u: EvaluationUtterance) => u.error?.code },
        { header: 'error_message', get: (u: EvaluationUtterance) => u.error?.message },
        { header: 'audio_url', get: (u: EvaluationUtterance) => u.audio_url },
      ]
    : [{ header: 'transcript / error', get: (u: EvaluationUtterance) => (u.error ? `[${u.error.code}] ${u.error.message}` : truncate(u.transcript, 48)) }]),
];

/** The human view of an evaluation: its fields, then the summary and comparisons when present. */
export async function printEvaluation(out: Output, ev: EvaluationDetail): Promise<void> {
  out.fields([
    ['evaluation_id', ev.evaluation_id],
    ['name', ev.name],
    ['status', ev.status],
    ['progress', `${ev.progress}% (${ev.completed_utterances}/${ev.total_utterances} utterances)`],
    ['providers', ev.providers.join(', ')],
    ['conditions', ev.conditions.join(', ')],
    ['group_by', ev.group_by],
    ['normalizer', `${ev.normalizer.name} v${ev.normalizer.version}`],
    ['seed', ev.seed],
    ['created_at', ev.created_at],
    ['completed_at', ev.completed_at],
  ]);
  if (!ev.summary) {
    out.info(`The summary appears when the evaluation is completed or partial (now ${ev.status}).`);
    return;
  }
  out.write('\n');
  await out.table(ev.summary, summaryColumns);
  if (ev.comparisons?.length) {
    out.write('\n');
    await out.table(ev.comparisons, comparisonColumns);
  }
}

/** Prints one page of a list (`--limit`/`--offset`), or every page from `--offset` on with `--all`. */
async function printPages<T>(
  out: Output,
  flags: { limit?: number; offset?: number; all?: boolean; csv?: boolean },
  fetchPage: (paging: Paging) => Promise<PageOf<T>>,
  columns: readonly Column<T>[],
): Promise<void> {
  if (!flags.all) {
    const page = await fetchPage({ limit: flags.limit, offset: flags.offset });
    return out.list(page, page.items, columns, flags);
  }
  const items: T[] = [];
  for await (const item of paginate(fetchPage, flags.offset ?? 0)) items.push(item);
  await out.list({ items, total: items.length, limit: items.length, offset: flags.offset ?? 0, has_more: false }, items, columns, flags);
}

/** Saves the evaluation's HTML report to `file` (the signed `report_url` needs no key). */
async function saveReport(client: VoxClient, ev: EvaluationDetail, file: string, force: boolean | undefined): Promise<void> {
  writeOutputFile(file, await client.downloadReport(ev.report_url), force);
}

/**
 * How a watched run ends (DESIGN §7, §8.7): the gate first — exit 7 naming every offending row — then
 * exit 6 for a run that ended failed, partial or cancelled.
 */
export function finishRun(ev: EvaluationDetail, maxWer: number | undefined): void {
  if (maxWer !== undefined && ev.summary) {
    const bad = gateFailures(ev.summary, maxWer);
    if (bad.length > 0) {
      const rows = bad.map((r) => `  ${r.provider} under ${r.condition}: WER ${r.wer === null ? 'n/a (nothing scored)' : r.wer.toFixed(4)}`);
      throw new CliError(`${bad.length} provider/condition row(s) exceed --max-wer ${maxWer}:\n${rows.join('\n')}`, {
        exitCode: ExitCode.werGate,
        hint: `see \`voxctl eval show ${ev.evaluation_id}\``,
      });
    }
  }
  if (ev.status !== 'completed') {
    const why = ev.status === 'partial' ? ': some syntheses failed' : '';
    throw new CliError(`${ev.evaluation_id} ended ${ev.status}${why}`, { exitCode: ExitCode.jobFailed, hint: `see \`voxctl eval utterances ${ev.evaluation_id} --errors-only\`` });
  }
}

/** `voxctl eval run|list|show|utterances|report|cancel` (DESIGN §8.7). */
export function registerEval(program: Command, ctx: HandlerContext): void {
  const evaluation = program
    .command('eval')
    .description('Evaluate STT providers on synthesised speech across voices, groups and audio conditions')
    .addHelpText('after', `\nExit codes as the other commands, plus ${ExitCode.werGate} when --max-wer is exceeded (the CI gate).`);

  examples(
    evaluation
      .command('run')
      .description('Start an evaluation: synthesise texts with speakers, degrade, transcribe, score')
      .option('--texts <file>', "texts, one per line ('-' reads stdin)")
      .option('--dataset <id>', 'use the texts of an uploaded dataset')
      .option('--speaker <id...>', 'speakers to use (repeat, or a comma-separated list)')
      .option('--filter <key=value...>', 'choose speakers from the catalogue: gender, region, accent, age_range, native_language')
      .option('--group-by <group>', 'group results by gender|region|accent|age_range|native_language|engine (default accent)')
      .option('--per-group <k>', 'speakers per group value with --filter (1..20)', intOption('--per-group', 1, 20))
      .option('--seed <n>', 'seed of the speaker choice, noise and bootstrap (default 0)', intOption('--seed', 0, Number.MAX_SAFE_INTEGER))
      .requiredOption('-p, --providers <list>', "comma-separated STT providers, or 'all'")
      .option('--conditions <list>', 'clean, telephone, noise:{snr}, speed:{factor}, comma-separated (default clean)')
      .option('--normalizer <name>', 'basic (default) or whisper-en')
      .option('--name <name>', 'a name for the evaluation')
      .option('--watch', 'show progress until it ends (exit 6 if it fails)')
      .option('--report <file>', 'save the HTML report when it ends (implies --watch)')
      .option('--force', 'overwrite an existing --report file')
      .option('--max-wer <x>', `CI gate: exit ${ExitCode.werGate} when a provider's overall WER under a condition exceeds x (implies --watch)`, werOption),
    [
      'voxctl eval run --texts prompts.txt --filter region=Europe --group-by accent --per-group 2 --providers local-sphinx --conditions clean,telephone,noise:5 --watch --report r.html',
      'voxctl eval run --texts prompts.txt --speaker spk_a spk_b --providers stt-b,local-sphinx --max-wer 0.3',
    ],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<RunFlags>(cmd);
    const body = await runRequest(ctx, flags);
    if (flags.report) assertWritable(flags.report, flags.force);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const created = await client.createEvaluation(body);
    const watch = flags.watch || flags.report !== undefined || flags.maxWer !== undefined;
    if (!watch) {
      if (out.json) return out.printJson(created);
      out.write(created.evaluation_id + '\n');
      out.info(`${created.total_utterances} utterances queued. Follow with: voxctl eval show ${created.evaluation_id}`);
      return;
    }
    out.info(`${created.evaluation_id}: ${created.total_utterances} utterances`);
    const ev = await watchEvaluation(() => client.getEvaluation(created.evaluation_id), {
      out,
      progress: new EvaluationProgress(out),
      now: () => ctx.clock.now().getTime(),
      sleep: ctx.clock.sleep,
    });
    if (out.json) out.printJson(ev);
    else await printEvaluation(out, ev);
    if (flags.report) {
      await saveReport(client, ev, flags.report, flags.force);
      out.success(`Saved the report of ${ev.evaluation_id} to ${flags.report}`);
    }
    finishRun(ev, flags.maxWer);
  });

  examples(
    pagingOptions(evaluation.command('list').addOption(new Option('--status <status>', 'only evaluations in this state').choices(STATUSES))).description(
      'List your evaluations, newest first',
    ),
    ['voxctl eval list', 'voxctl eval list --status completed --json | jq -r ".items[].evaluation_id"'],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<{ status?: EvaluationListItem['status']; limit?: number; offset?: number; all?: boolean; csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    await printPages(out, flags, (p) => client.listEvaluations({ status: flags.status, ...p }), listColumns);
  });

  examples(
    evaluation.command('show').argument('<id>', 'evaluation id').option('--csv', 'the summary rows as CSV').option('--watch', 'follow progress until it ends (exit 6 unless it completes)').description('Show an evaluation: progress, summary and comparisons'),
    ['voxctl eval show ev_123', 'voxctl eval show ev_123 --csv > summary.csv', 'voxctl eval show ev_123 --json | jq ".summary[] | select(.group == \\"all\\")"'],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ csv?: boolean; watch?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    const ev = flags.watch
      ? await watchEvaluation(() => client.getEvaluation(id), { out, progress: new EvaluationProgress(out), now: () => ctx.clock.now().getTime(), sleep: ctx.clock.sleep })
      : await client.getEvaluation(id);
    if (out.json) out.printJson(ev);
    else if (flags.csv) {
      if (!ev.summary) throw new CliError(`${id} is ${ev.status}: the summary appears when it is completed or partial`, { hint: `voxctl eval show ${id} --watch` });
      await out.csv(ev.summary, summaryCsvColumns);
    } else await printEvaluation(out, ev);
    if (flags.watch) finishRun(ev, undefined);
  });

  examples(
    pagingOptions(
      evaluation
        .command('utterances')
        .argument('<id>', 'evaluation id')
        .option('--provider <name>', 'only this provider')
        .option('--condition <c>', 'only this condition')
        .option('--group <value>', 'only this group value')
        .option('--errors-only', 'only utterances with errors')
        .option('--determinable-only', 'only determinable failures (another provider got the same audio right)'),
      'follow pages and list every utterance',
    ).description("List an evaluation's utterances: reference, transcript, WER, latency"),
    ['voxctl eval utterances ev_123 --determinable-only --provider stt-b', 'voxctl eval utterances ev_123 --all --csv > utterances.csv'],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ provider?: string; condition?: string; group?: string; errorsOnly?: boolean; determinableOnly?: boolean; limit?: number; offset?: number; all?: boolean; csv?: boolean }>(cmd);
    const condition = flags.condition === undefined ? undefined : parseConditions(flags.condition)[0];
    const query = {
      provider: flags.provider,
      condition,
      group: flags.group,
      ...(flags.errorsOnly ? { errors_only: true } : {}),
      ...(flags.determinableOnly ? { determinable_only: true } : {}),
    };
    const { client, out } = await connect(ctx, flags);
    const columns = utteranceColumns(Boolean(flags.csv));
    await printPages(out, flags, (p) => client.listEvaluationUtterances(id, { ...query, ...p }), columns);
  });

  examples(
    evaluation
      .command('report')
      .argument('<id>', 'evaluation id')
      .requiredOption('-o, --out <file>', 'HTML file to write')
      .option('--open', 'open the saved report in the browser')
      .option('--force', 'overwrite an existing file')
      .description('Save the self-contained HTML report of an evaluation'),
    ['voxctl eval report ev_123 -o report.html --open'],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ out: string; open?: boolean; force?: boolean }>(cmd);
    assertWritable(flags.out, flags.force);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const ev = await client.getEvaluation(id);
    await saveReport(client, ev, flags.out, flags.force);
    if (out.json) out.printJson({ evaluation_id: id, file: flags.out, status: ev.status });
    else out.success(`Saved the report of ${id} (${ev.status}) to ${flags.out}`);
    if (flags.open && !(await ctx.openUrl(pathToFileURL(resolve(flags.out)).href))) out.warn(`No browser opener found; open ${flags.out} yourself.`);
  });

  examples(evaluation.command('cancel').argument('<id>', 'evaluation id').description('Cancel an evaluation; characters not yet synthesised are refunded'), [
    'voxctl eval cancel ev_123',
  ]).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf(cmd);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const ev = await client.cancelEvaluation(id);
    if (out.json) return out.printJson(ev);
    out.write(`${ev.evaluation_id}\t${ev.status}\n`);
    out.success(`Cancelled ${id} after ${ev.completed_utterances} of ${ev.total_utterances} utterances`);
  });
}
